"""The agent loop with deferred tools: the model sees names, searches, gets the schemas, calls.

With the scripted model we ship, with the official SDKs against the scripted HTTP server, and
across a resumed session (promotions live in the stored run state)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import settings_for
from tooldeck._core.disclosure import catalog_hash
from tooldeck.agent import ScriptedModel, call, reply
from tooldeck.agent.models.base import Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.sessions import SessionStore
from tooldeck.testing.scripted_server import ScriptedServer, Turn

from .kit import make_deck


def run_turn(agent: Any, prompt: str, convo: Any = None) -> tuple[Any, Any]:
    async def main() -> tuple[Any, Any]:
        conversation = convo or agent.new_conversation()
        return await agent.run(conversation, prompt), conversation

    result: tuple[Any, Any] = asyncio.run(main())
    return result


def test_search_then_promoted_then_called_with_the_scripted_model(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    model = ScriptedModel(
        [
            reply(calls=[call("createIssue", {"repo": "a/b", "title": "bug"})]),  # not loaded yet
            reply(calls=[call("tool_search", {"query": "open an issue", "limit": 1})]),
            reply(calls=[call("createIssue", {"repo": "a/b", "title": "bug"})]),
            reply("filed"),
        ]
    )
    agent = deck.agent(model, store=False)
    result, convo = run_turn(agent, "file a bug")
    assert result.text == "filed"
    sent = [r.tool_names for r in model.requests]
    assert sent[0] == sent[1] == ("add", "tool_search")
    assert sent[2] == sent[3] == ("add", "tool_search", "createIssue")
    results = [m for m in convo.messages if m.role == "tool"]
    assert json.loads(results[0].content)["error"]["type"] == "not_promoted"
    definition = json.loads(results[1].content)["tools"][0]
    assert definition["function"]["name"] == "createIssue"  # the scripted model gets config's dialect
    assert results[2].content == "issue 'bug' opened in a/b" and not results[2].is_error
    assert convo.state.to_json()["promoted"] == {
        "catalog": catalog_hash(deck.loadout()),
        "names": ["createIssue"],
    }
    # Every request names the deferred tools, a line per toolset, after the configured system prompt.
    system = model.requests[0].system or ""
    assert system.startswith("You are a capable assistant")
    assert (
        "call tool_search first" in system
        and "- weather (1 tool): get_forecast" in system
        and "- github (2 tools): createIssue, list_pull_requests" in system
    )
    assert model.requests[3].system == system  # promotions do not change it (prompt caches survive)


@pytest.mark.parametrize(
    ("listing", "expected", "absent"),
    [
        (
            "names",
            "The deferred tools: createIssue, get_forecast, list_pull_requests, send_slack_message",
            "- ",
        ),
        ("none", "4 more tools are available but not loaded", "createIssue"),
        ("summaries", "- list_pull_requests: List the pull requests of a r…\n", "repository"),
    ],
)
def test_the_listing_of_deferred_tools_is_configurable(
    tmp_path: Path, listing: str, expected: str, absent: str
) -> None:
    deck = make_deck(tmp_path, listing=listing, summary_chars=30)
    model = ScriptedModel([reply("hi")])
    run_turn(deck.agent(model, store=False), "hello")
    system = model.requests[0].system or ""
    assert expected in system and absent not in system.split("tool_search first", 1)[1]


def test_a_resumed_session_keeps_its_promotions(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    db = tmp_path / "state.db"
    first = ScriptedModel(
        [reply(calls=[call("tool_search", {"query": "select:get_forecast"})]), reply("loaded")]
    )
    _, convo = run_turn(deck.agent(first, store=SessionStore(db)), "load the forecast tool")
    # Another process, later: a new agent resumes the stored session and calls the tool directly.
    second = ScriptedModel([reply(calls=[call("get_forecast", {"city": "Lyon"})]), reply("sunny")])
    agent = make_deck(tmp_path).agent(second, store=SessionStore(db))
    resumed = agent.resume(convo.session_id)
    assert resumed.state.to_json()["promoted"]["names"] == ["get_forecast"]
    result, _ = run_turn(agent, "weather in Lyon?", resumed)
    assert result.text == "sunny"
    assert "get_forecast" in second.requests[0].tool_names
    assert [m.content for m in resumed.messages if m.role == "tool"][-1] == "3 sunny days in Lyon"


def definitions(content: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(content)["tools"]
    return found


@pytest.mark.parametrize("provider", ["openai", "responses", "anthropic"])
def test_through_the_official_sdk(
    tmp_path: Path, scripted_server: ScriptedServer, provider: Provider
) -> None:
    scripted_server.add(
        Turn(calls=[("tool_search", {"query": "forecast for a city"})]),
        Turn(calls=[("get_forecast", {"city": "Paris", "days": 2})]),
        Turn(text="two sunny days"),
    )
    # native: off, the summaries listing: found tools join tools[] (see test_native_wire for auto).
    deck = make_deck(tmp_path, native="off", listing="summaries")
    agent = deck.agent(make_model(settings_for(scripted_server, provider)), store=False)
    result, _ = run_turn(agent, "weather in Paris?")
    assert result.text == "two sunny days"
    first, second, third = scripted_server.requests
    assert first.tool_names() == ["add", "tool_search"]
    assert second.tool_names() == third.tool_names() == ["add", "tool_search", "get_forecast"]
    assert "- get_forecast: Weather forecast" in (first.system or "")
    # The definitions tool_search returned are in the provider's own dialect.
    [(_, content)] = second.tool_results()
    [definition] = definitions(content)
    if provider == "anthropic":
        assert definition["name"] == "get_forecast" and "input_schema" in definition
    elif provider == "responses":
        assert definition["name"] == "get_forecast" and definition["type"] == "function"
    else:
        assert definition["function"]["name"] == "get_forecast"
    assert third.tool_results()[-1][1] == "2 sunny days in Paris"


def test_a_sub_agent_gets_tool_search_with_its_deferred_tools_and_only_then(tmp_path: Path) -> None:
    from tooldeck.agent.builtins.delegate import scoped_loadout

    parent = make_deck(tmp_path).loadout()
    child = scoped_loadout(parent, ["github"])
    assert child.exposed_names == ("tool_search",)
    assert child.deferred_names == ("createIssue", "list_pull_requests")
    plain = scoped_loadout(parent, ["core"])
    assert plain.exposed_names == ("add",) and not plain.deferred
