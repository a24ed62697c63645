"""The config is composed: the core holds its own keys (`CoreConfig`), each satellite owns its
section beside its code with its own checks, and `tooldeck.Config` puts them together above both,
in one key order, through every loader (mapping, file, cache, code)."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
from annotated_types import Ge

import tooldeck.core
from tooldeck import Config, load_config, parse_config
from tooldeck._core import config_load
from tooldeck._core.config import CoreConfig, composed
from tooldeck._core.config_load import load_config_as, parse_config_as
from tooldeck._core.control_plane import hidden_paths
from tooldeck.agent.config import AgentConfig
from tooldeck.core import ConfigSection, config_section
from tooldeck.errors import ConfigError
from tooldeck.serve.config import ServeConfig
from tooldeck.tools.browser.config import BrowserConfig
from tooldeck.tools.web.config import WebConfig, WebSearchConfig


def test_the_core_refuses_the_keys_its_satellites_own() -> None:
    for key in ("web", "agent", "serve"):
        with pytest.raises(ConfigError, match=rf"^{key}: unknown key"):
            parse_config_as(CoreConfig, {key: {}})
    composed_config = parse_config({"web": {"max_urls": 2}, "agent": {"max_iterations": 7}})
    assert composed_config.web.max_urls == 2 and composed_config.agent.max_iterations == 7


def test_each_satellite_section_lives_with_its_satellite() -> None:
    config = Config()
    assert type(config.web) is WebConfig and WebConfig.__module__ == "tooldeck.tools.web.config"
    assert type(config.web.search) is WebSearchConfig
    assert type(config.web.browser) is BrowserConfig
    assert BrowserConfig.__module__ == "tooldeck.tools.browser.config"
    assert type(config.agent) is AgentConfig and AgentConfig.__module__ == "tooldeck.agent.config"
    assert not hasattr(tooldeck.core, "WebConfig") and "Config" not in tooldeck.core.__all__


def test_the_serve_section_lives_in_the_serve_package_and_composes_without_the_server() -> None:
    import subprocess
    import sys

    import tooldeck.serve

    assert type(Config().serve) is ServeConfig and ServeConfig.__module__ == "tooldeck.serve.config"
    assert tooldeck.serve.ServeConfig is ServeConfig and "ServeConfig" not in tooldeck.core.__all__
    keys = [f.name for f in dataclasses.fields(Config)]
    assert keys[keys.index("execution") + 1 : keys.index("execution") + 3] == ["serve", "middleware"]
    # Reading a config with a serve section imports neither the server nor the MCP SDK.
    probe = (
        "import sys; from tooldeck import parse_config; from tooldeck.serve.config import ServeConfig; "
        "c = parse_config({'serve': {'max_tasks': 3}}); assert c.section(ServeConfig).max_tasks == 3; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('tooldeck.serve.')))"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["['tooldeck.serve.config']"]


def test_the_composed_config_keeps_the_files_key_order() -> None:
    keys = [f.name for f in dataclasses.fields(Config)]
    assert keys[keys.index("skills_dirs") + 1] == "web"
    assert keys[keys.index("dialects") + 1] == "agent"
    assert keys[-2:] == ["base_dir", "config_file"]
    assert (
        repr(Config()).index("skills_dirs=")
        < repr(Config()).index("web=")
        < repr(Config()).index("acp_agents=")
    )


def test_code_below_the_composed_config_reads_its_section_by_type() -> None:
    config = parse_config({"web": {"max_urls": 2}, "agent": {"system_prompt": "be brief"}})
    assert config.section(WebConfig) is config.web and config.section(AgentConfig) is config.agent
    assert config.section(ServeConfig) is config.serve and CoreConfig().section(ServeConfig) == ServeConfig()
    # A config composed without the section has the section's defaults.
    assert (
        CoreConfig().section(WebConfig) == WebConfig()
        and CoreConfig().section(AgentConfig).max_iterations == 90
    )


@pytest.mark.parametrize(
    ("build", "path"),
    [
        (lambda: parse_config({"web": {"search": {"provider": "searxng"}}}), "web.search.url"),
        (lambda: Config(web=WebConfig(search=WebSearchConfig(provider="searxng"))), "web.search.url"),
        (lambda: parse_config({"web": {"allowed_networks": ["intranet"]}}), r"web.allowed_networks\[0\]"),
        (lambda: Config(web=WebConfig(allowed_networks=["10.0.0.0/33"])), r"web.allowed_networks\[0\]"),
        (lambda: parse_config({"web": {"browser": {"timeout_s": 0}}}), "web.browser.timeout_s"),
        (
            lambda: parse_config({"agent": {"delegation_max_concurrency": 0}}),
            "agent.delegation_max_concurrency",
        ),
        (lambda: parse_config({"agent": {"memory": 1}}), "agent.memory: unknown key"),
        (lambda: parse_config({"serve": {"max_tasks": 0}}), "serve.max_tasks"),
        (lambda: Config(serve=ServeConfig(task_after_s=0)), "serve.task_after_s"),
        (lambda: parse_config({"serve": {"tasks": True}}), "serve.tasks: unknown key"),
    ],
)
def test_a_satellite_section_checks_itself_naming_the_key(build: Any, path: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{path}"):
        build()


def test_a_satellites_store_is_hidden_from_the_tools(tmp_path: Path) -> None:
    config = parse_config({"agent": {"sessions_db": "data/state.db"}}, base_dir=str(tmp_path))
    hidden = hidden_paths(config)
    assert tmp_path / "data" / "state.db" in hidden and tmp_path / "data" / "state.db-wal" in hidden


def test_a_cached_file_gives_back_the_composed_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLDECK_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tooldeck.yaml"
    path.write_text("web: {max_urls: 2, browser: {headless: false}}\nagent: {max_iterations: 7}\n", "utf-8")
    first = load_config(path)

    def unreachable(*_: object) -> object:
        raise AssertionError("the file was parsed again instead of read from the cache")

    monkeypatch.setattr(config_load, "_parse_yaml", unreachable)
    again = load_config(path)
    assert type(again) is Config and again == first and again is not first
    assert again.web.browser.headless is False and again.agent.max_iterations == 7
    # The same bytes read as the core's class are not the composed class's entry.
    with pytest.raises(AssertionError, match="parsed again"):
        load_config_as(CoreConfig, path)


# A component of one's own composes its section the same way.
@config_section
class ReportsConfig(ConfigSection):
    # Where reports are written, a folder name under the config's folder.
    folder: str = "reports"
    # How many reports are kept.
    keep: Annotated[int, Ge(1)] = 10

    def check(self, key: str) -> None:
        if "/" in self.folder:
            raise ConfigError("a folder name, not a path", path=f"{key}.folder")

    def stores(self, resolve: Any) -> list[Path]:
        return [resolve(self.folder)]


@composed
@config_section
class TeamConfig(CoreConfig):
    placed_after: ClassVar[dict[str, str]] = {"reports": "tools"}
    # The reports of the team's own component.
    reports: ReportsConfig = field(default_factory=ReportsConfig)


def test_a_new_component_composes_its_section_with_its_checks_and_place(tmp_path: Path) -> None:
    keys = [f.name for f in dataclasses.fields(TeamConfig)]
    assert keys[keys.index("tools") + 1] == "reports"
    team = parse_config_as(TeamConfig, {"reports": {"keep": 3}}, base_dir=str(tmp_path))
    assert team.section(ReportsConfig).keep == 3 and tmp_path / "reports" in hidden_paths(team)
    for data, problem in (
        ({"reports": {"folder": "a/b"}}, "reports.folder: a folder name"),
        ({"reports": {"keep": 0}}, "reports.keep: Input should be greater than or equal to 1"),
        ({"reports": {"kept": 1}}, "reports.kept: unknown key"),
        ({"web": {}}, "web: unknown key"),
    ):
        with pytest.raises(ConfigError, match=rf"^{problem}"):
            parse_config_as(TeamConfig, data)


def test_a_composed_classs_schema_follows_its_placed_after_order() -> None:
    """One mechanism orders the keys: `placed_after` places a satellite's key among the core's in
    the dataclass, and the JSON Schema (which pydantic would list base keys first) follows it."""
    keys = [f.name for f in dataclasses.fields(TeamConfig)]
    schema = tooldeck.core.config_schema_adapter(TeamConfig).json_schema(mode="validation")
    assert list(schema["properties"]) == keys
    assert keys.index("reports") == keys.index("tools") + 1 != len(keys) - 1
    nested = schema["$defs"]["ReportsConfig"]["properties"]
    assert list(nested) == [f.name for f in dataclasses.fields(ReportsConfig)]


def test_the_schema_lists_the_keys_in_the_files_order(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "TOOLDECK_HOME": str(tmp_path / "home"),
        "TOOLDECK_CACHE_DIR": str(tmp_path / "cache"),
    }
    main = "import sys; from tooldeck.cli.main import main; main(sys.argv[1:])"
    run = [sys.executable, "-c", main, "config", "--schema"]
    proc = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    keys = [f.name for f in dataclasses.fields(Config) if f.name not in ("base_dir", "config_file")]
    assert list(json.loads(proc.stdout)["properties"]) == keys
