"""Config: key paths in every error, ${VAR} interpolation, defaults."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Config, load_config, parse_config
from tooldeck._core.config import SandboxConfig
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
        cfg.platform = "x"
    assert isinstance(cfg, Config)


def test_mcp_server_errors_name_the_server_key() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"mcp_servers": {"git": {"transport": "carrier-pigeon"}}})
    assert str(info.value) == "mcp_servers.git.transport: Input should be 'stdio', 'http' or 'sse'"


def test_a_config_built_in_code_is_validated_like_a_file() -> None:
    with pytest.raises(ConfigError, match=r"sandbox\.kind: Input should be 'none' or 'bwrap'"):
        Config(sandbox=SandboxConfig(kind="docker"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"platform_toolsets\.cli: Input should be a valid list"):
        Config(platform_toolsets={"cli": "file"})  # type: ignore[dict-item]
    with pytest.raises(
        ConfigError, match=r"execution\.max_concurrency: Input should be greater than or equal to 1"
    ):
        Config().with_section("execution", max_concurrency=0)
    assert Config().with_section("execution", max_concurrency=2).execution.max_concurrency == 2


def test_tool_search_entries_are_checked_with_their_key_path() -> None:
    ok = parse_config({"tool_search": {"enabled": True, "defer": ["source:plugin", "web", "mcp__*"]}})
    assert ok.tool_search.defer == ["source:plugin", "web", "mcp__*"] and ok.tool_search.ranker == "auto"
    with pytest.raises(ConfigError, match=r"^tool_search\.defer\[1\]: unknown kind of source 'mpc'"):
        parse_config({"tool_search": {"defer": ["web", "source:mpc"]}})
    with pytest.raises(ConfigError, match=r"^tool_search\.defer\[0\]: an empty entry"):
        parse_config({"tool_search": {"defer": [" "]}})
    with pytest.raises(ConfigError, match=r"^tool_search\.max_exposed_tokens: "):
        parse_config({"tool_search": {"max_exposed_tokens": 0}})
    with pytest.raises(ConfigError, match=r"^tool_search\.listing: "):
        parse_config({"tool_search": {"listing": "everything"}})
    assert parse_config({"tools": [{"use": "m:f", "defer": True}]}).tools[0].defer is True


def test_a_cached_config_file_loads_without_yaml_or_pydantic(tmp_path: Path) -> None:
    path = tmp_path / "tooldeck.yaml"
    path.write_text("platform: cli\nmodel: {name: '${TD_TEST_MODEL}'}\n", encoding="utf-8")
    env = {**os.environ, "TOOLDECK_CACHE_DIR": str(tmp_path / "cache"), "TD_TEST_MODEL": "m1"}
    code = (
        "import sys; from tooldeck import load_config; c = load_config(sys.argv[1]); "
        "print(c.model.name, 'pydantic' in sys.modules, 'yaml' in sys.modules)"
    )
    run = [sys.executable, "-c", code, str(path)]

    def out(e: dict[str, str]) -> str:
        return subprocess.run(run, capture_output=True, text=True, check=True, env=e).stdout.strip()

    assert out(env) == "m1 True True"  # first read: parsed and validated, then cached
    assert out(env) == "m1 False False"  # same bytes, same environment: from the cache
    assert out({**env, "TD_TEST_MODEL": "m2"}) == "m2 True True"  # the variable changed: read again
    path.write_text("platform: cli\nmodel: {name: other}\n", encoding="utf-8")
    assert out(env) == "other True True"  # the file changed: read again
    assert out({**env, "TOOLDECK_CACHE_DIR": ""}) == "other True True"  # an empty value turns it off


def test_the_config_reference_is_generated_from_the_model_and_up_to_date() -> None:
    from tooldeck.cli.config_reference import reference

    docs = Path(__file__).resolve().parents[2] / "docs" / "config.md"
    assert docs.read_text(encoding="utf-8") == reference(), (
        "regenerate: tooldeck config --reference > docs/config.md"
    )
    undocumented = [line for line in reference().splitlines() if line.endswith("|  |")]
    assert undocumented == []


def test_the_defaults_are_what_validation_gives() -> None:
    assert parse_config({}) == Config(base_dir=None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("checks: {budget_ms: 1e15}\n", "checks.budget_ms: Input should be less than or equal to"),
        ("checks: {ttl_s: .inf}\n", "checks.ttl_s: Input should be a finite number"),
        ("checks: {ttl_s: 1e400}\n", "checks.ttl_s: Input should be a finite number"),
        ("model: {temperature: .nan}\n", "model.temperature: Input should be a finite number"),
        ("execution: {default_timeout_s: 1e12}\n", "execution.default_timeout_s: Input should be less than"),
    ],
)
def test_durations_are_finite_and_at_most_a_year(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "tooldeck.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(problem)):
        load_config(path)


def test_the_longest_durations_allowed_still_assemble(tmp_path: Path) -> None:
    from tooldeck import Deck
    from tooldeck._core.config import MAX_SECONDS

    path = tmp_path / "tooldeck.yaml"
    path.write_text(
        f"checks: {{budget_ms: {MAX_SECONDS * 1000}, ttl_s: {MAX_SECONDS}, flap_grace_s: {MAX_SECONDS}}}\n"
        f"execution: {{default_timeout_s: {MAX_SECONDS}}}\n",
        encoding="utf-8",
    )
    deck = Deck.load(path)
    assert "read_file" in [t.name for t in deck.loadout().exposed]
    assert deck.call_sync("read_file", {"path": "missing.txt"}).error is not None  # runs, within its timeout


@pytest.mark.parametrize(
    ("entry", "path", "problem"),
    [
        ({"requires_env": [""]}, "tools[0].requires_env[0]", "an environment variable name"),
        ({"requires_env": ["A B"]}, "tools[0].requires_env[0]", "an environment variable name"),
        ({"requires_bins": [""]}, "tools[0].requires_bins[0]", "a program name or path"),
        ({"requires_modules": ["no such"]}, "tools[0].requires_modules[0]", "a Python module name"),
        ({"name": "bad name!"}, "tools[0].name", "a tool name is letters, digits"),
    ],
)
def test_tool_entry_lists_and_names_are_checked(entry: dict[str, object], path: str, problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"tools": [{"use": "demo_tools:word_count", **entry}]})
    assert str(info.value).startswith(f"{path}: must be") or str(info.value).startswith(f"{path}: a tool")
    assert problem in str(info.value)


def test_an_mcp_server_with_an_empty_command_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"mcp_servers\.a\.command: must name the program"):
        parse_config({"mcp_servers": {"a": {"command": "  "}}})
