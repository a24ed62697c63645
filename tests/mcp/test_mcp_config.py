"""The `mcp_servers` section (YAML and `mcpServers` JSON files), child environments, tool names,
and keeping the SDK out of `import tooldeck` and of decks without MCP servers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import load_config, parse_config
from tooldeck._core.config import McpServerConfig
from tooldeck._core.config_load import mcp_server_configs
from tooldeck._core.sources.mcp.naming import MAX_NAME, deck_names
from tooldeck._core.sources.mcp.settings import child_env, server_specs
from tooldeck.errors import ConfigError


@pytest.mark.parametrize(
    ("servers", "path", "message"),
    [
        ({"s": {}}, "mcp_servers.s", "give either `command`"),
        ({"s": {"command": "x", "url": "http://h/mcp"}}, "mcp_servers.s", "give either `command`"),
        ({"s": {"url": "ftp://h"}}, "mcp_servers.s.url", "http:// or https://"),
        ({"s": {"url": "http://h/mcp", "transport": "stdio"}}, "mcp_servers.s.transport", "runs a `command`"),
        ({"s": {"command": "x", "transport": "sse"}}, "mcp_servers.s.transport", "needs a `url`"),
        ({"s": {"command": "x", "headers": {"A": "b"}}}, "mcp_servers.s.headers", "remote servers"),
        ({"s": {"url": "http://h/mcp", "env": {"A": "b"}}}, "mcp_servers.s.env", "only servers run with"),
        ({"s": {"url": "http://h/mcp", "scope": "thread"}}, "mcp_servers.s.scope", "thread-scoped"),
        ({"s": {"command": "x", "timeout": 0}}, "mcp_servers.s.timeout", "greater than 0"),
        ({"s": {"command": "x", "colour": "red"}}, "mcp_servers.s.colour", "unknown key"),
        ({"bad name": {"command": "x"}}, "mcp_servers.bad name", "letters, digits"),
    ],
)
def test_bad_server_entries_name_their_key(servers: dict[str, object], path: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"mcp_servers": servers})
    assert str(caught.value).startswith(path) and message in str(caught.value)


def test_missing_variable_is_an_error_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        "mcp_servers:\n  api:\n    url: https://h/mcp\n    headers: {Authorization: 'Bearer ${NO_SUCH_TOKEN_VAR}'}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert "NO_SUCH_TOKEN_VAR" in str(caught.value) and "mcp_servers.api.headers.Authorization" in str(
        caught.value
    )


def test_mcp_servers_json_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_REPO_FOR_TEST", "/srv/repo")
    (tmp_path / "servers.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "git": {"command": "mcp-server-git", "args": ["--repository", "${GIT_REPO_FOR_TEST}"]},
                    "remote": {"type": "streamable-http", "url": "https://example.com/mcp"},
                    "legacy": {"type": "sse", "url": "https://example.com/sse", "disabled": True},
                }
            }
        )
    )
    (tmp_path / "tooldeck.yaml").write_text("mcp_servers: servers.json\n")
    config = load_config(tmp_path / "tooldeck.yaml")
    specs = {s.name: s for s in server_specs(config)}
    assert specs["git"].args == ("--repository", "/srv/repo") and specs["git"].transport == "stdio"
    assert specs["remote"].transport == "http" and specs["legacy"].transport == "sse"
    assert not specs["legacy"].enabled and specs["git"].enabled


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"git": {"command": 5}}, "mcp_servers(servers.json).git.command: Input should be a valid string"),
        ({"git": {"command": "x", "env": {"T": "${NOT_SET_ANYWHERE}"}}}, "NOT_SET_ANYWHERE"),
        ({"git": "mcp-server-git"}, "mcp_servers(servers.json).git: must be an object"),
    ],
)
def test_json_file_errors_name_the_file_and_key(
    tmp_path: Path, entry: dict[str, object], message: str
) -> None:
    (tmp_path / "servers.json").write_text(json.dumps({"mcpServers": entry}))
    with pytest.raises(ConfigError) as caught:
        parse_config({"mcp_servers": "servers.json"}, base_dir=str(tmp_path))
    assert message in str(caught.value)


def test_json_file_that_is_not_there_or_not_json(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        parse_config({"mcp_servers": "absent.json"}, base_dir=str(tmp_path))
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        parse_config({"mcp_servers": "broken.json"}, base_dir=str(tmp_path))


def test_secrets_stay_out_of_repr() -> None:
    config = parse_config(
        {"mcp_servers": {"api": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer s3cr3t"}}}}
    )
    assert "s3cr3t" not in repr(config) and "s3cr3t" not in repr(server_specs(config))
    assert mcp_server_configs(config)["api"].headers["Authorization"] == "Bearer s3cr3t"


def test_child_env_allow_list() -> None:
    environ = {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "AWS_SECRET": "x", "FN": "() { :; }"}
    env = child_env(McpServerConfig(command="x", env={"EXTRA": "1"}), environ)
    assert env == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "EXTRA": "1"}
    narrow = child_env(McpServerConfig(command="x", inherit_env=["AWS_*"]), environ)
    assert narrow == {"AWS_SECRET": "x"}


def test_tool_names_are_prefixed_short_and_distinct() -> None:
    long_tool = "a_really_long_tool_name_that_goes_on_and_on_past_the_limit_of_sixty_four"
    names = deck_names("srv", ["git.status", "git_status", "ok", long_tool, long_tool + "_2"])
    assert names["ok"] == "mcp__srv__ok"
    assert len(set(names.values())) == 5
    assert all(len(n) <= MAX_NAME and n.startswith("mcp__srv__") for n in names.values())
    assert names["git.status"] != names["git_status"]
    # Stable: the same tools get the same names in any order.
    assert deck_names("srv", reversed(list(names))) == names
    assert all(len(n) <= MAX_NAME for n in deck_names("s" * 48, ["t" * 80, "u"]).values())


def test_import_tooldeck_and_a_deck_without_servers_never_load_the_sdk() -> None:
    code = (
        "import sys, tooldeck\n"
        "from tooldeck import Deck\n"
        "Deck().loadout()\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'anyio', 'httpx2')]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_an_exact_tool_name_keeps_its_name_and_only_changed_names_are_hashed() -> None:
    names = deck_names("n", ["a.b", "a_b", "a b", "plain"])
    assert names["a_b"] == "mcp__n__a_b"
    assert names["plain"] == "mcp__n__plain"
    # Both names that had to change clash (with each other and with a_b): each gets its hash.
    assert names["a.b"].startswith("mcp__n__a_b_") and names["a b"].startswith("mcp__n__a_b_")
    assert len(set(names.values())) == 4
    for order in (["a b", "a_b", "a.b", "plain"], ["plain", "a.b", "a b", "a_b"]):
        assert deck_names("n", order) == names
    # A changed name that clashes with nothing needs no hash.
    assert deck_names("n", ["a.b"]) == {"a.b": "mcp__n__a_b"}
