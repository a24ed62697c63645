"""What `tools` and `explain` report besides the tools, through the real console script: every
diagnostic the API has, each under a heading that tells the truth about `strict: true`."""

from __future__ import annotations

import json
from pathlib import Path

from .clirun import tooldeck

DOWN = "mcp_servers: {a: {command: /nonexistent/mcp-server, connect_timeout: 2}}\n"
DOWN_NOTE = (
    "mcp_servers.a: MCP server 'a' (/nonexistent/mcp-server) is not available, its tools are unknown: "
    "command not found: /nonexistent/mcp-server"
)


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tooldeck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_server_that_fails_to_connect_is_a_warning_that_strict_leaves_alone(tmp_path: Path) -> None:
    config = _config(tmp_path, DOWN + "strict: true\n")
    tools = tooldeck("tools", "--config", str(config), "--json")
    assert tools.returncode == 0, tools.stderr
    assert f"tooldeck: warning: {DOWN_NOTE}" in tools.stderr.splitlines()
    assert "error:" not in tools.stderr  # nothing claims the command failed
    explain = tooldeck("explain", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    tail = explain.stdout[explain.stdout.rindex("└") :]
    assert "strict" not in tail  # the heading does not claim strict: true would fail on it
    assert f"Warnings:\n  • {DOWN_NOTE}" in tail


def test_config_mistakes_and_runtime_conditions_are_listed_apart(tmp_path: Path) -> None:
    config = _config(tmp_path, DOWN + "disabled_toolsets: [fiel]\n")
    explain = tooldeck("explain", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    tail = explain.stdout[explain.stdout.rindex("└") :]
    assert (
        "Config warnings (strict: true makes these errors):\n"
        "  • disabled_toolsets[0]: unknown toolset 'fiel'; did you mean 'file'?\n"
        f"Warnings:\n  • {DOWN_NOTE}\n"
    ) in tail
    # And it is true: under strict the config mistake fails the command, the server does not.
    config.write_text(DOWN + "disabled_toolsets: [fiel]\nstrict: true\n", encoding="utf-8")
    strict = tooldeck("explain", "--config", str(config), "--json")
    assert strict.returncode == 2 and "disabled_toolsets[0]: unknown toolset 'fiel'" in strict.stderr
    assert json.loads(tooldeck("tools", "--config", str(_config(tmp_path, DOWN)), "--json").stdout)
