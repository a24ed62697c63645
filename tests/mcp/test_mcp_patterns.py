"""`include_tools` / `exclude_tools` patterns that match none of a real server's tools are
reported as warnings naming the key and the pattern, by the API, `explain` and `mcp list`."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from ..cli.clirun import tooldeck
from .mcpkit import deck_over, tiny

PATTERNS = {"include_tools": ["nomatch_*", "ech?"], "exclude_tools": ["zzz*"]}


def test_the_api_warns_about_each_pattern_that_matches_nothing(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"fs": tiny(**PATTERNS)}) as deck:
        assert [t["function"]["name"] for t in deck.tools()] == ["mcp__fs__echo"]
        notes = {d.path: d for d in deck.explain().diagnostics if d.path and d.path.endswith("_tools")}
    assert set(notes) == {"mcp_servers.fs.include_tools", "mcp_servers.fs.exclude_tools"}
    include = notes["mcp_servers.fs.include_tools"]
    assert include.level == "warning"
    assert "pattern 'nomatch_*' matches none of MCP server 'fs''s tools" in include.message
    assert "it has: add_tool, crash, delete, echo" in include.message and "(11 in all)" in include.message
    assert "ech?" not in include.message  # a pattern that matched is not reported
    assert "pattern 'zzz*' matches none" in notes["mcp_servers.fs.exclude_tools"].message


def test_explain_and_mcp_list_show_the_warning_even_when_strict(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    servers = {"fs": tiny(include_tools=["nomatch_*"])}
    data = {"mcp_servers": servers, "plugins": {"enabled": False}, "strict": True}
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    explain = tooldeck("explain", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    assert "mcp_servers.fs.include_tools: pattern 'nomatch_*' matches none" in explain.stdout
    listed = tooldeck("mcp", "list", "--json", "--config", str(config))
    assert listed.returncode == 0, listed.stderr
    [fs] = json.loads(listed.stdout)
    assert fs["state"] == "ready" and fs["tools"] == []
    [warning] = fs["warnings"]
    assert warning.startswith("mcp_servers.fs.include_tools: pattern 'nomatch_*' matches none")
    table = tooldeck("mcp", "list", "--config", str(config))
    assert "warning: mcp_servers.fs.include_tools" in table.stdout and "'nomatch_*'" in table.stdout
