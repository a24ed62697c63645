"""`tooldeck mcp list`, and the other commands over MCP servers, run as the real console script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ..cli.clirun import tooldeck
from .mcpkit import everything, tiny


def write_config(tmp_path: Path, servers: dict[str, Any]) -> Path:
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        yaml.safe_dump({"mcp_servers": servers, "plugins": {"enabled": False}}, sort_keys=False)
    )
    return config


def test_mcp_list_json(tmp_path: Path) -> None:
    servers = {
        "good": tiny(),
        "broken": tiny("--exit-at-start", "2"),
        "stuck": tiny("--hang", connect_timeout=1.5),
        "off": {**tiny(), "enabled": False},
    }
    config = write_config(tmp_path, servers)
    out = tooldeck("mcp", "list", "--json", "--config", str(config))  # the hung server costs its timeout
    assert out.returncode == 0, out.stderr
    listing = {s["name"]: s for s in json.loads(out.stdout)}
    assert list(listing) == ["good", "broken", "stuck", "off"]
    assert set(listing["good"]) == {"name", "state", "tools", "error", "warnings"}
    assert listing["good"]["state"] == "ready" and listing["good"]["error"] is None
    assert "mcp__good__echo" in listing["good"]["tools"]
    assert listing["broken"]["state"] == "failed" and listing["broken"]["tools"] == []
    assert "exited with code 2: cannot start" in listing["broken"]["error"]
    assert listing["stuck"]["state"] == "failed" and "within 1.5 s" in listing["stuck"]["error"]
    assert listing["off"] == {"name": "off", "state": "disabled", "tools": [], "error": None, "warnings": []}


def test_mcp_list_table_and_config_errors(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"ev": everything(), "broken": tiny("--exit-at-start", "9")})
    out = tooldeck("mcp", "list", "--config", str(config))
    assert out.returncode == 0, out.stderr
    assert "ready" in out.stdout and "mcp__ev__echo" in out.stdout
    assert "failed" in out.stdout and "exited with code 9" in out.stdout
    bad = write_config(tmp_path, {"s": {"url": "ftp://x"}})
    refused = tooldeck("mcp", "list", "--config", str(bad))
    assert refused.returncode == 2 and "mcp_servers.s.url" in refused.stderr


def test_explain_tools_and_call_over_mcp(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"srv": tiny(), "broken": tiny("--exit-at-start", "3")})
    explain = tooldeck("explain", "--json", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    fates = {f["name"]: f for f in json.loads(explain.stdout)}
    assert fates["mcp__srv__echo"]["status"] == "exposed" and fates["mcp__srv__echo"]["source"] == "mcp"
    assert fates["mcp__srv__echo"]["toolset"] == "mcp-srv"
    assert "MCP server 'broken'" in explain.stderr and "exited with code 3" in explain.stderr
    tools = tooldeck("tools", "--json", "--config", str(config))
    assert "mcp__srv__delete" in {t["function"]["name"] for t in json.loads(tools.stdout)}
    call = tooldeck(
        "call", "mcp__srv__echo", "--args", '{"text": "via cli"}', "--json", "--config", str(config)
    )
    assert call.returncode == 0, call.stderr
    assert json.loads(call.stdout)["ok"] and "via cli" in json.loads(call.stdout)["content"]
    # A destructive tool needs approval; without --yes a non-interactive call is refused.
    refused = tooldeck(
        "call", "mcp__srv__delete", "--args", '{"what": "x"}', "--json", "--config", str(config)
    )
    assert refused.returncode == 1 and json.loads(refused.stdout)["error"]["type"] == "denied"
    allowed = tooldeck(
        "call", "mcp__srv__delete", "--args", '{"what": "x"}', "--yes", "--config", str(config)
    )
    assert allowed.returncode == 0 and "deleted x" in allowed.stdout


def test_a_command_run_in_process_stops_the_servers_it_started_and_only_those(tmp_path: Path) -> None:
    """`tooldeck.cli.main.run` (a command line in a process that goes on) leaves no MCP server
    running behind it, as the console script leaves none; a deck the program opened before the
    command keeps its server."""
    import os

    from tooldeck.cli.main import run

    from .mcpkit import children_of, deck_over, process_alive

    config = write_config(tmp_path, {"t": tiny()})
    own_folder = tmp_path / "own"
    own_folder.mkdir()
    before = set(children_of(os.getpid()))  # the worker's own (a session fixture's warm client) stay
    with deck_over(own_folder, {"mine": tiny()}) as deck:
        assert "mcp__mine__echo" in deck.loadout().exposed_names
        own = [p for p in children_of(os.getpid()) if p not in before]
        assert own, "the program's own deck started its server"
        assert run(["mcp", "list", "--json", "--config", str(config)]) == 0
        assert run(["call", "mcp__t__echo", "--args", '{"text": "hi"}', "--config", str(config)]) == 0
        left = [p for p in children_of(os.getpid()) if p not in before and p not in own]
        assert left == [], "a server the commands started is still running"
        assert all(process_alive(p) for p in own), "the program's own server was stopped"
