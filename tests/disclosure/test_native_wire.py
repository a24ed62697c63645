"""Native deferral on the wire (`tool_search.native: auto`), through the official SDKs against the
scripted server: Anthropic `defer_loading` + `tool_reference` (or its server-side search),
Responses `tool_search` (client or hosted) + `defer_loading` + namespaces, and the cache-stable
mode of Chat Completions. In every mode tools[] and the system prompt stay the same bytes for the
conversation, the found tool runs and its result reaches the model."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from disclosure.kit import TOOLS, config_data
from tooldeck import Deck, parse_config
from tooldeck._core.sources.base import StaticSource
from tooldeck.agent.events import CacheBreak, EventLog
from tooldeck.agent.models.base import ModelSettings, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.models.prefix import unmarked
from tooldeck.agent.models.reasoning import Reasoning
from tooldeck.agent.sessions import SessionStore
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

FORECAST = "3 sunny days in Lyon"


def make_deck(tmp_path: Path, **tool_search: Any) -> Deck:
    """The kit's tools, the weather and GitHub ones served as if by an MCP server."""
    config = parse_config(config_data(tmp_path, **tool_search), env={})
    mcp = [t for t in TOOLS if t.toolset in ("weather", "github")]
    rest = [t for t in TOOLS if t not in mcp]
    return Deck(config, tools=rest, sources=[StaticSource(mcp, name="fake", kind="mcp")], builtins=False)


def run(
    server: ScriptedServer, provider: Provider, deck: Deck, tmp_path: Path, stream: bool = False, **model: Any
) -> tuple[Any, EventLog]:
    log = EventLog()
    settings = ModelSettings(
        provider=provider,
        model="scripted-model",
        base_url=server.openai_url,
        stream=stream,
        retry_initial_s=0.01,
        **model,
    )
    agent = deck.agent(make_model(settings), store=SessionStore(tmp_path / "state.db"), events=log)

    async def main() -> Any:
        try:
            return await agent.run(agent.new_conversation(), "weather in Lyon?")
        finally:
            await agent.aclose()

    return asyncio.run(main()), log


def search_then_call(call: str = "get_forecast") -> list[Turn]:
    """Find the forecast tool with `select:`, call it (as `call`), answer."""
    args: dict[str, Any] = {"city": "Lyon"}
    found = (
        ("call_tool", {"name": "get_forecast", "arguments": args}) if call == "call_tool" else (call, args)
    )
    return [
        Turn(calls=[("tool_search", {"query": "select:get_forecast"})]),
        Turn(calls=[found]),
        Turn("sunny"),
    ]


def converse(
    server: ScriptedServer, provider: Provider, tmp_path: Path, stream: bool, call: str = "get_forecast"
) -> tuple[list[Recorded], EventLog]:
    """Search, call the found tool, answer: the three requests the server received."""
    server.add(*search_then_call(call))
    result, log = run(server, provider, make_deck(tmp_path), tmp_path, stream)
    assert result.status == "done" and result.text == "sunny"
    return server.requests, log


def assert_stable(requests: list[Recorded]) -> None:
    """tools[] and the system prompt are the same bytes in every request, and each request's
    history begins with the previous one's."""
    first = requests[0].body
    for r in requests[1:]:
        assert json.dumps(r.body.get("tools")) == json.dumps(first.get("tools"))
        assert r.system == requests[0].system
    for before, after in itertools.pairwise(requests):
        key = "input" if before.kind == "responses" else "messages"
        old, new = unmarked(before.body[key]), unmarked(after.body[key])
        assert new[: len(old)] == old


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_anthropic_defers_with_defer_loading_and_answers_searches_with_tool_references(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path, stream: bool
) -> None:
    (first, second, third), log = converse(scripted_server, "anthropic", tmp_path, stream)
    tools = {t["name"]: t for t in first.body["tools"]}
    assert tools["get_forecast"]["defer_loading"] is True and tools["createIssue"]["defer_loading"] is True
    assert "defer_loading" not in tools["tool_search"] and "defer_loading" not in tools["add"]
    assert "advanced-tool-use-2025-11-20" in first.headers["anthropic-beta"]
    # The search result brings the definition in where it stands, as a tool_reference.
    result_block = second.body["messages"][-1]["content"][-1]
    assert result_block["type"] == "tool_result"
    assert result_block["content"] == [{"type": "tool_reference", "tool_name": "get_forecast"}]
    assert FORECAST in third.tool_results()[-1][1]
    # Breakpoints: the tools + system prefix, and the newest message.
    assert first.body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert third.body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert_stable(scripted_server.requests)
    assert not log.of(CacheBreak)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_anthropic_server_search_blocks_are_kept_as_received_and_what_they_found_runs(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path, stream: bool
) -> None:
    scripted_server.add(
        Turn(calls=[("tool_search_tool_regex", {"query": "forecast"}), ("get_forecast", {"city": "Lyon"})]),
        Turn("sunny"),
    )
    deck = make_deck(tmp_path, execution="server", server_search="regex")
    result, _ = run(scripted_server, "anthropic", deck, tmp_path, stream)
    assert result.status == "done"
    first, second = scripted_server.requests
    types = [t.get("type") for t in first.body["tools"]]
    assert "tool_search_tool_regex_20251119" in types
    assert "tool_search" not in [t["name"] for t in first.body["tools"]]  # the provider searches
    said = second.body["messages"][1]["content"]
    assert [b["type"] for b in said] == ["server_tool_use", "tool_search_tool_result", "tool_use"]
    assert said[1]["content"]["tool_references"] == [{"type": "tool_reference", "tool_name": "get_forecast"}]
    [(answered, text)] = second.tool_results()
    assert answered == said[2]["id"] and FORECAST in text
    assert_stable(scripted_server.requests)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_responses_client_search_goes_as_tool_search_items_and_mcp_tools_as_namespaces(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path, stream: bool
) -> None:
    (first, second, third), _ = converse(scripted_server, "responses", tmp_path, stream)
    tools = first.body["tools"]
    search = next(t for t in tools if t["type"] == "tool_search")
    assert search["execution"] == "client" and "query" in search["parameters"]["properties"]
    spaces = {t["name"]: t for t in tools if t["type"] == "namespace"}
    assert set(spaces) == {"github", "weather"}
    assert all(f["defer_loading"] is True for s in spaces.values() for f in s["tools"])
    assert "weather" in spaces["weather"]["description"]
    slack = next(t for t in tools if t.get("name") == "send_slack_message")  # not MCP: top level
    assert slack["defer_loading"] is True
    call, output = second.body["input"][-2:]
    assert call["type"] == "tool_search_call" and call["execution"] == "client"
    assert output["type"] == "tool_search_output" and output["call_id"] == call["call_id"]
    assert (
        output["tools"][0]["type"] == "namespace" and output["tools"][0]["tools"][0]["name"] == "get_forecast"
    )
    fc = third.body["input"][-2]
    assert fc["type"] == "function_call" and fc["namespace"] == "weather"
    assert FORECAST in third.tool_results()[-1][1]
    keys = {r.body["prompt_cache_key"] for r in scripted_server.requests}
    assert len(keys) == 1 and keys.pop().startswith("tooldeck-")
    assert_stable(scripted_server.requests)


def test_responses_hosted_search_promotes_what_it_loaded(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path
) -> None:
    scripted_server.add(
        Turn(calls=[("tool_search", {"query": "forecast weather"}), ("get_forecast", {"city": "Lyon"})]),
        Turn("sunny"),
    )
    result, _ = run(scripted_server, "responses", make_deck(tmp_path, execution="server"), tmp_path)
    assert result.status == "done"
    first, second = scripted_server.requests
    assert {"type": "tool_search", "execution": "server"} in first.body["tools"]
    kinds = [i.get("type") for i in second.body["input"]]
    assert kinds[1:4] == ["tool_search_call", "tool_search_output", "function_call"]
    assert FORECAST in second.tool_results()[-1][1]
    assert_stable(scripted_server.requests)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_chat_completions_keeps_tools_stable_and_reaches_found_tools_through_call_tool(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path, stream: bool
) -> None:
    (first, second, third), log = converse(scripted_server, "openai", tmp_path, stream, "call_tool")
    assert first.tool_names() == ["add", "tool_search", "call_tool"]
    loaded = json.loads(second.tool_results()[-1][1])
    assert loaded["loaded"] == ["get_forecast"] and loaded["tools"][0]["function"]["name"] == "get_forecast"
    assert FORECAST in third.tool_results()[-1][1]
    sent = third.body["messages"][-2]["tool_calls"][0]["function"]
    assert sent["name"] == "call_tool" and json.loads(sent["arguments"])["name"] == "get_forecast"
    assert len({r.body["prompt_cache_key"] for r in scripted_server.requests}) == 1
    assert_stable(scripted_server.requests)
    assert not log.of(CacheBreak)


def test_a_tool_not_yet_found_is_refused_through_call_tool(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path
) -> None:
    scripted_server.add(
        Turn(calls=[("call_tool", {"name": "get_forecast", "arguments": {"city": "Lyon"}})]), Turn("ok")
    )
    run(scripted_server, "openai", make_deck(tmp_path), tmp_path)
    error = json.loads(scripted_server.requests[1].tool_results()[0][1])
    assert "tool_search" in json.dumps(error) and "get_forecast" in json.dumps(error)


def test_with_native_off_a_promotion_changes_tools_and_is_reported_as_a_cache_break(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path
) -> None:
    scripted_server.add(*search_then_call())
    result, log = run(scripted_server, "anthropic", make_deck(tmp_path, native="off"), tmp_path)
    assert result.status == "done"
    assert "get_forecast" in scripted_server.requests[1].tool_names()
    assert not any(t.get("defer_loading") for t in scripted_server.requests[0].body["tools"])
    [brk] = log.of(CacheBreak)
    assert brk.changed == ("tools: added get_forecast",) and 0 <= brk.reused < 1


@pytest.mark.parametrize("provider", ["anthropic", "responses", "openai"])
def test_a_resumed_session_keeps_what_it_found_and_its_requests_start_the_same(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path, provider: Provider
) -> None:
    scripted_server.add(Turn(calls=[("tool_search", {"query": "select:get_forecast"})]), Turn("loaded"))
    deck = make_deck(tmp_path)
    first, _ = run(scripted_server, provider, deck, tmp_path)
    call = ("call_tool", {"name": "get_forecast", "arguments": {"city": "Lyon"}})
    scripted_server.add(
        Turn(calls=[call if provider == "openai" else ("get_forecast", {"city": "Lyon"})]), Turn("sunny")
    )
    settings = ModelSettings(provider=provider, model="scripted-model", base_url=scripted_server.openai_url)
    agent = make_deck(tmp_path).agent(make_model(settings), store=SessionStore(tmp_path / "state.db"))

    async def resume() -> Any:
        try:
            return await agent.run(agent.resume(first.session_id), "and now?")
        finally:
            await agent.aclose()

    assert asyncio.run(resume()).text == "sunny"
    before, resumed, last = scripted_server.requests[1:]
    assert json.dumps(resumed.body["tools"]) == json.dumps(before.body["tools"])
    assert resumed.body.get("prompt_cache_key") == before.body.get("prompt_cache_key")
    assert FORECAST in last.tool_results()[-1][1]


def test_responses_reasoning_goes_back_beside_the_tool_search_call_it_came_with(
    scripted_server: ScriptedServer, tmp_path: Path, home: Path
) -> None:
    thought = "the forecast tool is deferred"
    scripted_server.add(
        Turn(calls=[("tool_search", {"query": "select:get_forecast"})], reasoning=thought),
        Turn(calls=[("get_forecast", {"city": "Lyon"})], reasoning=thought),
        Turn("sunny"),
    )
    result, _ = run(
        scripted_server, "responses", make_deck(tmp_path), tmp_path, reasoning=Reasoning(effort="low")
    )
    assert result.text == "sunny"  # the server refuses a request that drops the reasoning items
    _, second, third = scripted_server.requests
    kinds = [i.get("type") for i in second.body["input"]]
    assert kinds[1:] == ["reasoning", "tool_search_call", "tool_search_output"]
    assert second.body["input"][2]["call_id"] == second.body["input"][3]["call_id"]
    assert FORECAST in third.tool_results()[-1][1]
