"""The loadout as OpenAI Agents SDK tools: the SDK's real `Runner`, over the real `openai` client,
against a scripted OpenAI-compatible server on loopback, each tool call through tooldeck."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    set_tracing_disabled,
)
from openai import AsyncOpenAI
from tests.interop.loadout import add, elsewhere, wipe

from tooldeck import Config, Deck, ToolContext, tool
from tooldeck.interop import openai_agents_tools
from tooldeck.testing.scripted_server import ScriptedServer, Turn


@pytest.fixture(autouse=True)
def no_tracing() -> Iterator[None]:
    # The SDK's default trace exporter posts to the vendor's servers; tests talk to loopback only.
    set_tracing_disabled(True)
    yield


@tool(toolset="math")
def whose(ctx: ToolContext) -> str:
    """Which session runs this call."""
    return str(ctx.session_id)


def the_deck() -> Deck:
    return Deck(
        Config(platform_toolsets={"cli": ["math"]}), tools=[add, wipe, whose, elsewhere], builtins=False
    )


def run(server: ScriptedServer, deck: Deck, prompt: str, *, responses: bool = False, **options: Any) -> str:
    client = AsyncOpenAI(base_url=server.openai_url, api_key="test-key", max_retries=0)
    model = (
        OpenAIResponsesModel(model="scripted", openai_client=client)
        if responses
        else OpenAIChatCompletionsModel(model="scripted", openai_client=client)
    )
    agent = Agent(
        name="assistant", instructions="Use the tools.", model=model, tools=openai_agents_tools(deck)
    )
    result = asyncio.run(Runner.run(agent, prompt, **options))
    return str(result.final_output)


def test_the_runner_makes_one_tool_call_through_tooldeck() -> None:
    deck = the_deck()
    with ScriptedServer([Turn(calls=[("add", {"a": "2", "b": 3})]), Turn("it is 5")]) as server:
        assert run(server, deck, "What is 2 + 3?") == "it is 5"
        first, second = server.requests
    assert sorted(first.tool_names()) == ["add", "whose", "wipe"]  # exactly the exposed tools
    assert [content for _, content in second.tool_results()] == ["5"]  # "2" coerced by tooldeck


def test_refused_and_malformed_calls_are_results_the_model_reads() -> None:
    deck = the_deck()
    script = [Turn(calls=[("wipe", {"path": "/"}), ("add", '{"a": 1')]), Turn("could not")]
    with ScriptedServer(script) as server:
        assert run(server, deck, "Wipe it", responses=True) == "could not"
        results = dict(server.requests[1].tool_results())
    [denied, truncated] = [json.loads(text)["error"] for text in results.values()]
    assert denied["type"] == "denied" and truncated["type"] == "invalid_arguments"


def test_a_runs_group_is_its_tooldeck_session() -> None:
    deck = the_deck()
    with ScriptedServer([Turn(calls=[("whose", {})]), Turn("done")]) as server:
        run(server, deck, "who?", run_config=RunConfig(group_id="thread-9"))
        [(_, session)] = server.requests[1].tool_results()
    assert session == "thread-9"
    with ScriptedServer([Turn(calls=[("whose", {})]), Turn(calls=[("whose", {})]), Turn("done")]) as server:
        run(server, deck, "who, twice?")
        [(_, one)] = server.requests[1].tool_results()
        two = server.requests[2].tool_results()[-1][1]
    assert one == two and one.startswith("openai-agents-run-")  # one run, one session
    assert deck.openai_agents_tools()[0].name == "add"
