"""The loadout as LangChain tools: exactly the exposed tools, each call through the deck, refusals
as the text the model reads, and LangGraph's thread as tooldeck's session."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from tests.interop.loadout import add, elsewhere, wipe

from tooldeck import Config, Deck, ToolContext, tool
from tooldeck.interop import langchain_tools


@tool(toolset="math")
async def whose(ctx: ToolContext) -> str:
    """Which session runs this call."""
    return str(ctx.session_id)


def the_deck(**config: Any) -> Deck:
    return Deck(
        Config(platform_toolsets={"cli": ["math"]}, **config),
        tools=[add, wipe, whose, elsewhere],
        builtins=False,
    )


def by_name(tools: list[BaseTool]) -> dict[str, BaseTool]:
    return {t.name: t for t in tools}


def test_exactly_the_exposed_tools_with_tooldecks_rendering() -> None:
    deck = the_deck()
    tools = by_name(langchain_tools(deck))
    assert sorted(tools) == ["add", "whose", "wipe"]  # `elsewhere` is hidden by the toolset gate
    rendered = {t["function"]["name"]: t["function"] for t in deck.tools()}
    assert tools["add"].description == rendered["add"]["description"]
    assert tools["add"].args_schema == rendered["add"]["parameters"]
    assert sorted(by_name(deck.langchain_tools())) == sorted(tools)


def test_invoke_runs_the_call_through_tooldeck_with_coercion() -> None:
    tools = by_name(langchain_tools(the_deck()))
    assert tools["add"].invoke({"a": "2", "b": 3}) == "5"
    assert asyncio.run(tools["add"].ainvoke({"a": 40, "b": "2"})) == "42"


def test_refused_calls_come_back_as_the_error_text_not_as_exceptions() -> None:
    tools = by_name(langchain_tools(the_deck()))
    invalid = tools["add"].invoke({"a": "two", "b": 3})
    assert '"type": "invalid_arguments"' in invalid and "field 'a'" in invalid
    denied = tools["wipe"].invoke({"path": "/"})  # nobody to approve: the tool does not run
    assert '"type": "denied"' in denied
    message = tools["wipe"].invoke({"name": "wipe", "args": {"path": "/"}, "id": "c7", "type": "tool_call"})
    assert isinstance(message, ToolMessage) and message.status == "error" and message.tool_call_id == "c7"
    assert '"type": "denied"' in str(message.content)
    ok = tools["add"].invoke({"name": "add", "args": {"a": 1, "b": 1}, "id": "c8", "type": "tool_call"})
    assert isinstance(ok, ToolMessage) and ok.status == "success" and ok.content == "2"


def test_approvals_follow_the_decks_config() -> None:
    tools = by_name(langchain_tools(the_deck(approvals={"mode": "deny"})))
    assert '"type": "denied"' in tools["wipe"].invoke({"path": "/"})


def test_a_langgraph_thread_is_the_tooldeck_session() -> None:
    tools = by_name(langchain_tools(the_deck()))
    whose_tool = tools["whose"]
    assert whose_tool.invoke({}, config={"configurable": {"thread_id": "thread-1"}}) == "thread-1"
    assert asyncio.run(whose_tool.ainvoke({}, config={"configurable": {"thread_id": "t2"}})) == "t2"
    assert whose_tool.invoke({}) == "None"  # no thread: a session of its own, as deck.call
