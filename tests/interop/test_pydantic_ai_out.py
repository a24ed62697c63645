"""The loadout as a pydantic-ai toolset, driven by pydantic-ai's own TestModel and FunctionModel:
the agent sees exactly the exposed tools, re-assembled at each step, and each call goes through
tooldeck (coercion, refusals, approvals), per conversation.

Runs are `asyncio.run(agent.run(...))`: `run_sync` leaves an event loop of its own open in the thread."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from tests.interop.loadout import add, elsewhere, wipe

from tooldeck import Config, Deck, ToolContext, tool
from tooldeck.interop import pydantic_ai_toolset


def the_deck(*extra: object, **config: Any) -> Deck:
    platform_toolsets = config.pop("platform_toolsets", {"cli": ["math", "text"]})
    return Deck(
        Config(platform_toolsets=platform_toolsets, **config),
        tools=[add, wipe, elsewhere, *extra],
        builtins=False,
    )


def returns(messages: list[ModelMessage]) -> list[tuple[str, Any]]:
    return [(p.tool_name, p.content) for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]


def test_test_model_sees_exactly_the_exposed_tools_and_calls_them_through_tooldeck() -> None:
    model = TestModel()
    agent = Agent(model, toolsets=[pydantic_ai_toolset(the_deck())])
    result = asyncio.run(agent.run("go"))
    assert sorted(t.name for t in model.last_model_request_parameters.function_tools) == ["add", "wipe"]
    answers = json.loads(result.output)
    assert answers["add"] == "0"  # TestModel's own arguments, a=0 b=0, run by tooldeck
    assert json.loads(answers["wipe"])["error"]["type"] == "denied"  # nobody to approve: not run


def test_a_coerced_and_a_refused_call_are_the_tools_results() -> None:
    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart("add", {"a": "2", "b": 3}, tool_call_id="c1"),
                    ToolCallPart("add", {"a": "two", "b": 3}, tool_call_id="c2"),
                ]
            )
        return ModelResponse(parts=[TextPart(json.dumps(returns(messages)))])

    deck = the_deck()
    agent = Agent(FunctionModel(script), toolsets=[deck.pydantic_ai_toolset()])
    [(_, coerced), (_, refused)] = json.loads(asyncio.run(agent.run("go")).output)
    assert coerced == "5"
    error = json.loads(refused)["error"]
    assert error["type"] == "invalid_arguments" and "field 'a'" in error["message"]


@tool(toolset="text", defer=True)
def word_count(text: str) -> str:
    """Count the words of a text."""
    return str(len(text.split()))


def test_each_step_sees_the_loadout_of_that_moment_and_the_runs_promotions() -> None:
    state = {"ready": False}

    @tool(toolset="math", check=lambda: state["ready"])
    def late() -> str:
        """Ready only later."""
        return "late"

    seen: list[list[str]] = []
    instructions: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(sorted(t.name for t in info.function_tools))
        instructions.append(info.instructions or "")
        step = len(seen)
        if step == 1:
            state["ready"] = True  # the check flips between two steps of the run
            return ModelResponse(parts=[ToolCallPart("tool_search", {"query": "select:word_count"})])
        if step == 2:
            return ModelResponse(parts=[ToolCallPart("word_count", {"text": "one two three"})])
        return ModelResponse(parts=[TextPart(json.dumps(returns(messages)[-1]))])

    deck = the_deck(
        late,
        word_count,
        tool_search={"enabled": True, "defer": ["text"]},
        checks={"ttl_s": 0, "flap_grace_s": 0},
    )
    agent = Agent(FunctionModel(script), toolsets=[pydantic_ai_toolset(deck)])
    assert json.loads(asyncio.run(agent.run("count")).output) == ["word_count", "3"]
    assert seen[0] == ["add", "tool_search", "wipe"]  # word_count deferred, late not available
    assert "word_count" in instructions[0]  # the deferred tools are named in the instructions
    assert seen[1] == ["add", "late", "tool_search", "wipe", "word_count"]


def test_a_conversation_is_one_tooldeck_session_and_another_is_another() -> None:
    @tool(toolset="math")
    def whose(ctx: ToolContext) -> str:
        """Which session runs this call."""
        return str(ctx.session_id)

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not returns(messages):
            return ModelResponse(parts=[ToolCallPart("whose", {})])
        return ModelResponse(parts=[TextPart(str(returns(messages)[-1][1]))])

    agent = Agent(FunctionModel(script), toolsets=[pydantic_ai_toolset(the_deck(whose))])
    first = asyncio.run(agent.run("who?", conversation_id="conv-1"))
    assert first.output == "conv-1"
    assert asyncio.run(agent.run("who?", conversation_id="conv-2")).output == "conv-2"
