"""Deferred tools through `tooldeck serve`: promotions belong to the client session that made them.

A session lists the exposed tools and `tool_search` (whose description names the deferred
tools); a search promotes the tools it finds for that session alone, which is told its list
changed. 2026-07-28 clients have no session: they get the definitions from `tool_search` and
may call those tools directly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from serve.helpers import http_server, make_config
from support.mcp_text import text_of
from tooldeck import Deck, Tool, parse_config
from tooldeck.serve import DeckServer

DEFERRING = "tool_search: {enabled: true, defer: [shout, guarded]}\n"


def say(name: str) -> Tool:
    return Tool(
        name=name,
        description=f"Say {name} out loud.",
        parameters={"type": "object", "properties": {}},
        handler=lambda args, n=name: f"hello from {n}",
        toolset="live",
    )


def test_a_search_promotes_for_the_session_and_tells_it(tmp_path: Path) -> None:
    config = parse_config(
        {"tool_search": {"enabled": True, "defer": ["live"]}, "home": str(tmp_path)}, env={}
    )
    deck = Deck(config, tools=[say("first"), say("second")], builtins=False)
    server = DeckServer(deck, interval_s=3600)

    async def session() -> dict[str, Any]:
        changed = anyio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        out: dict[str, Any] = {}
        async with Client(server.server, mode="legacy", message_handler=on_message) as client:
            [listed] = (await client.list_tools()).tools
            out["before"] = listed.name
            out["description"] = listed.description
            refused = await client.call_tool("first", {})
            out["refused"] = json.loads(text_of(refused))["error"]["type"]
            out["found"] = json.loads(
                text_of(await client.call_tool("tool_search", {"query": "select:first"}))
            )
            with anyio.fail_after(10):
                await changed.wait()
            out["after"] = [t.name for t in (await client.list_tools()).tools]
            out["called"] = text_of(await client.call_tool("first", {}))
            out["still_refused"] = (await client.call_tool("second", {})).is_error
        return out

    out = asyncio.run(session())
    assert out["before"] == "tool_search"
    assert "- live (2 tools): first, second" in out["description"]
    assert out["refused"] == "not_promoted"
    assert out["found"]["loaded"] == ["first"]
    assert out["found"]["tools"] == [
        {
            "name": "first",
            "description": "Say first out loud.",
            "inputSchema": {"type": "object", "properties": {}},
        }
    ]
    assert out["after"] == ["tool_search", "first"]
    assert out["called"] == "hello from first" and out["still_refused"] is True
    assert server.notifications_sent == 1


async def http_session(url: str, steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run steps in one HTTP session: ("list", {}) lists tool names, (name, args) calls a tool."""
    out: list[Any] = []
    async with (
        httpx2.AsyncClient() as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        for name, args in steps:
            if name == "list":
                out.append([t.name for t in (await client.list_tools()).tools])
            else:
                result = await client.call_tool(name, args)
                out.append((result.is_error, text_of(result)))
    return out


def test_promotions_are_per_session_over_http(tmp_path: Path) -> None:
    config = make_config(tmp_path, DEFERRING)
    with http_server(config) as url:
        first = asyncio.run(
            http_session(
                url,
                [
                    ("list", {}),
                    ("tool_search", {"query": "shout upper-case text"}),
                    ("list", {}),
                    ("shout", {"text": "hi"}),
                ],
            )
        )
        other = asyncio.run(http_session(url, [("list", {}), ("shout", {"text": "hi"})]))
    assert first[0] == ["dawdle", "explode", "tool_search"]
    assert json.loads(first[1][1])["loaded"] == ["shout"]
    assert first[2] == ["dawdle", "explode", "tool_search", "shout"]
    assert first[3] == (False, "HI")
    # Another session has promoted nothing.
    assert other[0] == ["dawdle", "explode", "tool_search"]
    assert other[1][0] is True and json.loads(other[1][1])["error"]["type"] == "not_promoted"


def test_sessionless_clients_call_what_tool_search_returned(tmp_path: Path) -> None:
    config = parse_config(
        {"tool_search": {"enabled": True, "defer": ["live"]}, "home": str(tmp_path)}, env={}
    )
    deck = Deck(config, tools=[say("first")], builtins=False)
    server = DeckServer(deck, interval_s=3600)

    async def session() -> tuple[list[str], dict[str, Any], str, list[str]]:
        async with Client(server.server, mode="auto") as client:  # negotiates 2026-07-28
            names = [t.name for t in (await client.list_tools()).tools]
            found = json.loads(text_of(await client.call_tool("tool_search", {"query": "say first"})))
            called = text_of(await client.call_tool("first", {}))
            again = [t.name for t in (await client.list_tools()).tools]
        return names, found, called, again

    names, found, called, again = asyncio.run(session())
    assert names == again == ["tool_search"]  # nothing is remembered without a session
    assert found["tools"][0]["inputSchema"] == {"type": "object", "properties": {}}
    assert called == "hello from first"
