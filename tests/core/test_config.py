"""Config: key paths in every error, ${VAR} interpolation, defaults."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck.config import Config, load_config, parse_config
from tooldeck.errors import ConfigError


def test_defaults_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = load_config(None)
    assert cfg.platform == "cli" and cfg.strict is False and cfg.checks.budget_ms == 1000
    assert cfg.sandbox.kind == "none" and not cfg.sandbox.allow_host_shell


def test_unknown_key_names_its_path() -> None:
    with pytest.raises(ConfigError, match=r"sandbox\.allow_host_shel: unknown key"):
        parse_config({"sandbox": {"allow_host_shel": True}})
    with pytest.raises(ConfigError, match=r"tools\[1\]\.colour: unknown key"):
        parse_config({"tools": [{"use": "a:b"}, {"use": "a:b", "colour": "red"}]})


def test_wrong_type_names_its_path() -> None:
    with pytest.raises(ConfigError, match=r"checks\.budget_ms: Input should be a valid number"):
        parse_config({"checks": {"budget_ms": "soon"}})
    with pytest.raises(ConfigError, match=r"checks\.budget_ms: Input should be greater than 0"):
        parse_config({"checks": {"budget_ms": 0}})
    with pytest.raises(ConfigError, match=r"tools\[0\]\.timeout: Input should be greater than 0"):
        parse_config({"tools": [{"use": "a:b", "timeout": -1}]})
    with pytest.raises(
        ConfigError, match=r"agent\.max_iterations: Input should be greater than or equal to 1"
    ):
        parse_config({"agent": {"max_iterations": 0}})
    with pytest.raises(ConfigError, match=r"sandbox\.kind: Input should be 'none' or 'bwrap'"):
        parse_config({"sandbox": {"kind": "docker"}})
    with pytest.raises(ConfigError, match=r"tools\[0\]\.use: .*package\.module:attribute"):
        parse_config({"tools": [{"use": "not a reference"}]})


def test_env_interpolation_and_missing_variable() -> None:
    cfg = parse_config(
        {"model": {"base_url": "http://${HOST}:${PORT:-8080}/v1", "name": "${MODEL}"}},
        env={"HOST": "127.0.0.1", "MODEL": "m1"},
    )
    assert cfg.model.base_url == "http://127.0.0.1:8080/v1" and cfg.model.name == "m1"
    with pytest.raises(ConfigError) as info:
        parse_config({"mcp_servers": {"git": {"command": "x", "env": {"TOKEN": "${GIT_TOKEN}"}}}}, env={})
    assert "GIT_TOKEN" in str(info.value) and "mcp_servers.git.env.TOKEN" in str(info.value)


def test_yaml_syntax_error_has_a_position(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("platform: cli\ntools: [\n  - oops: : :\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"invalid YAML at line \d+, column \d+"):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "missing.yaml")


def test_config_is_frozen_and_paths_resolve_against_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "tooldeck.yaml"
    path.write_text("sandbox: {workspace: work}\n", encoding="utf-8")
    cfg = load_config(path)
    assert cfg.resolve_path(cfg.sandbox.workspace) == tmp_path / "work"
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.platform = "x"  # type: ignore[misc]
    assert isinstance(cfg, Config)


def test_mcp_server_errors_name_the_server_key() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"mcp_servers": {"git": {"transport": "carrier-pigeon"}}})
    assert str(info.value) == "mcp_servers.git.transport: Input should be 'stdio', 'http' or 'sse'"


def test_building_a_config_in_code_does_not_import_pydantic() -> None:
    code = (
        "import sys; from tooldeck.config import Config, ToolsetConfig; "
        "c = Config(platform_toolsets={'p': ['s']}, toolsets={'s': ToolsetConfig(includes=['a'])}); "
        "assert c.toolsets['s'].includes == ['a']; print('pydantic' in sys.modules or 'annotated_types' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
