"""Nothing waits for an MCP server it does not need: a call that a higher-priority source settles
runs while a server that never answers is still connecting; listing waits at most one connect
timeout and shows the server as timed out. The hung server is the tiny server's `--hang` (it
reads requests and never answers), given a connect timeout of 600 s where a wait for it would
make the test time out."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooldeck import Deck, parse_config
from tooldeck._core.sources.mcp import McpSource, stdio
from tooldeck._core.sources.mcp.supervisor import Breaker

from ..cli.clirun import tooldeck
from .mcpkit import process_alive, tiny, wait_for

NEVER = 600  # a connect timeout no test may wait for


def config_data(tmp_path: Path, servers: dict[str, Any]) -> dict[str, Any]:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / "notes.txt").write_text("the built-in read this\n")
    return {
        "mcp_servers": servers,
        "sandbox": {"workspace": str(workspace)},
        "home": str(tmp_path / "home"),
        "plugins": {"enabled": False},
    }


def source(deck: Deck, server: str) -> McpSource:
    return next(s for s in deck.sources if isinstance(s, McpSource) and s.spec.name == server)


def test_cli_call_of_a_builtin_does_not_wait_for_a_hung_server(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    config.write_text(yaml.safe_dump(config_data(tmp_path, {"hung": tiny("--hang", connect_timeout=NEVER)})))
    # A generous bound far below the 600 s connect timeout: it can only pass if nothing waits.
    out = tooldeck("call", "read_file", "--args", '{"path": "notes.txt"}', "--json", "--config", str(config))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["ok"] and "the built-in read this" in result["content"]
    # The server was not waited for, so nothing is claimed about it.
    assert "hung" not in out.stderr


def test_direct_calls_wait_only_for_the_servers_that_could_offer_the_tool(tmp_path: Path) -> None:
    servers = {"hung": tiny("--hang", connect_timeout=NEVER), "good": tiny()}
    deck = Deck(parse_config(config_data(tmp_path, servers), base_dir=str(tmp_path)))
    try:
        hung = source(deck, "hung")
        builtin = deck.call_sync("read_file", {"path": "notes.txt"})
        assert builtin.ok and "the built-in read this" in builtin.content
        # The good server's tool waits for the good server only.
        echoed = deck.call_sync("mcp__good__echo", {"text": "past the hung one"})
        assert echoed.ok and "past the hung one" in echoed.content
        [again] = asyncio.run(_batch(deck))
        assert again.ok and "the built-in read this" in again.content
        # Each result arrived while the hung server was still on its first attempt.
        assert not hung.supervisor.first_attempt.is_set() and hung.supervisor.state == "connecting"
        assert not any(t.name.startswith("mcp__hung__") for t in deck.registry.snapshot())
    finally:
        deck.close()


async def _batch(deck: Deck) -> list[Any]:
    from tooldeck._core.execution.types import ToolCall

    return await deck.call_batch([ToolCall("c1", "read_file", {"path": "notes.txt"})])


def test_tools_that_call_other_tools_wait_and_see_the_timeout(tmp_path: Path) -> None:
    servers = {"hung": tiny("--hang", connect_timeout=2)}
    deck = Deck(parse_config(config_data(tmp_path, servers), base_dir=str(tmp_path)))
    try:
        hung = source(deck, "hung")
        # None of these could be the server's; terminal's description is live, but it calls no tool.
        deck.loadout(calling=["read_file", "no_such_tool", "terminal"])
        assert not hung.supervisor.first_attempt.is_set()
        # execute_code's programs call the other tools (calls_tools): its loadout needs every source.
        assert next(t for t in deck.registry.snapshot() if t.name == "execute_code").calls_tools
        deck.loadout(calling=["execute_code"])
        assert hung.supervisor.first_attempt.is_set()
        notes = {d.path: d.message for d in deck.explain().diagnostics if d.path}
        assert "timed out: no answer while " in notes["mcp_servers.hung"], notes
        assert "within 2 s" in notes["mcp_servers.hung"]
    finally:
        deck.close()


def test_a_call_of_the_servers_own_name_waits_for_it(tmp_path: Path) -> None:
    deck = Deck(
        parse_config(config_data(tmp_path, {"hung": tiny("--hang", connect_timeout=2)}), base_dir=".")
    )
    try:
        result = deck.call_sync("mcp__hung__echo", {"text": "x"})
        assert source(deck, "hung").supervisor.first_attempt.is_set()
        assert result.error is not None and result.error.type == "unknown_tool"
    finally:
        deck.close()


def test_listing_commands_wait_one_connect_timeout_and_show_it_timed_out(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    config.write_text(yaml.safe_dump(config_data(tmp_path, {"hung": tiny("--hang", connect_timeout=2)})))
    listed = tooldeck("mcp", "list", "--json", "--config", str(config))
    assert listed.returncode == 0, listed.stderr
    [hung] = json.loads(listed.stdout)
    assert hung["state"] == "failed" and hung["error"].startswith("timed out: no answer while ")
    explained = tooldeck("explain", "--json", "--config", str(config))
    assert explained.returncode == 0, explained.stderr
    assert "mcp_servers.hung" in explained.stderr and "timed out: no answer" in explained.stderr
    assert any(f["name"] == "read_file" for f in json.loads(explained.stdout))
    tools = tooldeck("tools", "--json", "--config", str(config))
    assert tools.returncode == 0 and "timed out: no answer" in tools.stderr


def test_a_strict_config_naming_a_connecting_servers_toolset_is_no_error(tmp_path: Path) -> None:
    data = {
        **config_data(tmp_path, {"hung": tiny("--hang", connect_timeout=NEVER)}),
        "strict": True,
        "platform_toolsets": {"cli": ["file", "mcp-hung"]},
    }
    config = tmp_path / "tooldeck.yaml"
    config.write_text(yaml.safe_dump(data))
    out = tooldeck("call", "read_file", "--args", '{"path": "notes.txt"}', "--config", str(config))
    assert out.returncode == 0, out.stderr
    assert "the built-in read this" in out.stdout


def test_closing_the_deck_does_not_wait_for_a_server_that_never_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server that never answered has no session to end: it gets no grace to leave by itself
    # after its stdin closes, and the failed attempt's backoff is not waited out either. Both
    # made 600 s here: were either waited for, the deck's close would give up on its own budget
    # (a handful of seconds) with the server not yet closed.
    monkeypatch.setattr(stdio, "EXIT_GRACE_S", float(NEVER))
    monkeypatch.setattr(Breaker, "delay", lambda self, failures: float(NEVER))
    pid_file = tmp_path / "hung.pid"
    hung_server = tiny("--hang", "--linger", "--pid-file", str(pid_file), connect_timeout=NEVER)
    deck = Deck(parse_config(config_data(tmp_path, {"hung": hung_server}), base_dir=str(tmp_path)))
    hung = source(deck, "hung")
    assert deck.call_sync("read_file", {"path": "notes.txt"}).ok
    pid = int(wait_for(lambda: pid_file.exists() and pid_file.read_text(), what="the hung server started"))
    deck.close()
    assert hung.supervisor.state == "closed"
    assert not process_alive(pid)
