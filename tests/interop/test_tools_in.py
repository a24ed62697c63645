"""Tools of LangChain, pydantic-ai and the OpenAI Agents SDK in `Deck(tools=[...])`: each keeps its
framework's name, description and schema, and runs through tooldeck's whole execution path."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Annotated, Any, Literal

import pytest
from agents import function_tool
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field
from pydantic_ai import RunContext
from pydantic_ai import Tool as PydanticTool

from tooldeck import Config, ConfigError, Deck, ToolDefinitionError
from tooldeck import tool as td_tool
from tooldeck.core import AutoApprover
from tooldeck.interop import framework_of


def deck_of(*tools: object, **config: Any) -> Deck:
    return Deck(Config(**config), tools=tools, builtins=False)


# -- LangChain ------------------------------------------------------------------------------


@tool(parse_docstring=True)
def shift(count: Annotated[int, Field(ge=1, le=9)], direction: Literal["up", "down"] = "up") -> str:
    """Shift the gears.

    Args:
        count: How many gears.
        direction: Which way.
    """
    return f"{count} {direction}"


@tool
async def slow_echo(text: str, delay: float = 0.0) -> str:
    """Echo a text after a delay."""
    await asyncio.sleep(delay)
    return text


class ReadFileArgs(BaseModel):
    path: str = Field(description="The file to read.")


class ReadFileTool(BaseTool):
    """A subclass, as DeerFlow writes its sandbox tools."""

    name: str = "read_file_lc"
    description: str = "Read a file of the sandbox."
    args_schema: type[BaseModel] = ReadFileArgs

    def _run(self, path: str) -> str:
        if path == "missing":
            raise FileNotFoundError(path)
        return f"contents of {path}"


def test_a_langchain_tool_keeps_the_schema_langchain_sends_and_is_called_through_tooldeck() -> None:
    deck = deck_of(shift)
    [sent] = deck.tools()
    theirs = convert_to_openai_tool(shift)["function"]
    assert sent["function"]["name"] == "shift" and sent["function"]["description"] == theirs["description"]
    props = sent["function"]["parameters"]["properties"]
    assert props["count"]["minimum"] == 1 and props["count"]["maximum"] == 9
    assert props["count"]["description"] == "How many gears." and props["count"]["type"] == "integer"
    assert props["direction"]["enum"] == ["up", "down"] and props["direction"]["default"] == "up"
    assert deck.call_sync("shift", {"count": "3"}).content == "3 up"  # coerced by tooldeck
    refused = deck.call_sync("shift", {"count": 12})
    assert refused.error is not None and refused.error.type == "invalid_arguments"
    assert "count" in refused.error.message


def test_sync_async_structured_and_subclassed_langchain_tools_all_run() -> None:
    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    structured = StructuredTool.from_function(multiply, name="multiply")
    deck = deck_of(structured, slow_echo, ReadFileTool())
    assert [t["function"]["name"] for t in deck.tools()] == ["multiply", "read_file_lc", "slow_echo"]
    assert deck.call_sync("multiply", {"a": 6, "b": "7"}).content == "42"
    assert deck.call_sync("slow_echo", {"text": "hi"}).content == "hi"
    assert deck.call_sync("read_file_lc", {"path": "a.txt"}).content == "contents of a.txt"
    failed = deck.call_sync("read_file_lc", {"path": "missing"})
    assert failed.error is not None and failed.error.type == "tool_error"
    assert "FileNotFoundError" in failed.error.message and "Traceback" not in failed.content
    [fate] = deck.explain("read_file_lc").fates
    assert fate.status == "exposed" and fate.tool.source == "user"


def test_an_async_langchain_tool_is_stopped_by_the_tooldeck_timeout() -> None:
    deck = deck_of(slow_echo, execution={"default_timeout_s": 0.5})
    result = deck.call_sync("slow_echo", {"text": "late", "delay": 30})
    assert result.error is not None and result.error.type == "timeout"


def test_a_langchain_tool_with_injected_arguments_is_refused_by_name() -> None:
    @tool
    def needs_id(a: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Uses the call id."""
        return tool_call_id

    with pytest.raises(ToolDefinitionError, match=r"'needs_id'.*injects.*tool_call_id"):
        deck_of(needs_id)


def test_a_foreign_tool_clashing_with_one_of_tooldeck_is_reported_with_both_owners() -> None:
    @td_tool
    def shift(count: int) -> str:  # the same name as the LangChain tool
        """Mine."""
        return "mine"

    with pytest.raises(
        ConfigError,
        match=r"'shift' is claimed twice .*<locals>.shift and by langchain StructuredTool 'shift'",
    ):
        Deck(Config(), tools=[shift, globals()["shift"]], builtins=False)


# -- pydantic-ai ----------------------------------------------------------------------------


def scale(value: float, factor: int = 2, unit: Literal["m", "cm"] = "m") -> str:
    """Scale a length.

    Args:
        value: The length.
        factor: By how much.
        unit: The unit of the length.
    """
    return f"{value * factor:g} {unit}"


def test_a_pydantic_ai_tool_keeps_its_schema_and_options() -> None:
    wrapped = PydanticTool(scale, requires_approval=True, sequential=True, timeout=5)
    deck = deck_of(wrapped)
    [sent] = deck.tools()
    assert sent["function"]["name"] == "scale" and sent["function"]["description"] == "Scale a length."
    props = sent["function"]["parameters"]["properties"]
    assert props["factor"] == wrapped.function_schema.json_schema["properties"]["factor"]
    assert props["unit"]["enum"] == ["m", "cm"] and props["value"]["description"] == "The length."
    [converted] = deck.loadout().exposed
    assert converted.sequential and converted.timeout == 5 and converted.requires_approval
    denied = deck.call_sync("scale", {"value": 1.5})  # nobody to approve it: not run
    assert denied.error is not None and denied.error.type == "denied"
    assert deck.call_sync("scale", {"value": "1.5"}, approver=AutoApprover()).content == "3 m"


def test_a_pydantic_ai_tool_taking_a_run_context_is_refused_with_the_reason() -> None:
    def whoami(ctx: RunContext[str], shout: bool = False) -> str:
        """Who runs this."""
        return ctx.deps

    with pytest.raises(ToolDefinitionError, match=r"'whoami' needs a run context") as caught:
        deck_of(PydanticTool(whoami))
    assert "RunContext" in str(caught.value)


async def fetch_title(url: str) -> str:
    """Fetch the title of a page."""
    await asyncio.sleep(0)
    if "bad" in url:
        raise ValueError("no such page")
    return f"title of {url}"


def test_an_async_pydantic_ai_tool_runs_and_its_exception_is_a_tool_error() -> None:
    deck = deck_of(PydanticTool(fetch_title))
    assert deck.call_sync("fetch_title", {"url": "https://x.test"}).content == "title of https://x.test"
    failed = deck.call_sync("fetch_title", {"url": "https://bad.test"})
    assert failed.error is not None and failed.error.type == "tool_error"
    assert "no such page" in failed.error.message


# -- OpenAI Agents SDK ----------------------------------------------------------------------


@function_tool
def subtract(a: int, b: int) -> int:
    """Subtract b from a.

    Args:
        a: The minuend.
        b: The subtrahend.
    """
    return a - b


@function_tool(failure_error_function=None)
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"exploded: {reason}")


@function_tool
def explode_softly(reason: str) -> str:
    """Fails, and the SDK's default failure function turns it into text."""
    raise RuntimeError(f"soft: {reason}")


def test_an_openai_agents_tool_keeps_its_schema_and_runs_through_tooldeck() -> None:
    deck = deck_of(subtract, explode, explode_softly)
    sent = {t["function"]["name"]: t["function"] for t in deck.tools()}
    assert sent["subtract"]["description"] == subtract.description
    assert sent["subtract"]["parameters"]["properties"]["a"]["description"] == "The minuend."
    assert deck.call_sync("subtract", {"a": "9", "b": 4}).content == "5"
    hard = deck.call_sync("explode", {"reason": "x"})
    assert hard.error is not None and hard.error.type == "tool_error" and "exploded: x" in hard.error.message
    soft = deck.call_sync("explode_softly", {"reason": "y"})
    # The SDK's default failure function answered with its own text: a result, as in the SDK.
    assert soft.ok and soft.content.startswith("An error occurred while running the tool")


def test_an_openai_agents_tool_that_needs_approval_asks_tooldeck_and_fails_closed() -> None:
    @function_tool(needs_approval=True)
    def delete_branch(name: str) -> str:
        """Delete a branch."""
        return f"deleted {name}"

    deck = deck_of(delete_branch)
    denied = deck.call_sync("delete_branch", {"name": "main"})
    assert denied.error is not None and denied.error.type == "denied"
    assert deck.call_sync("delete_branch", {"name": "old"}, approver=AutoApprover()).content == "deleted old"


def test_an_openai_agents_tool_with_a_run_dependent_enable_is_refused() -> None:
    @function_tool(is_enabled=lambda ctx, agent: True)
    def sometimes() -> str:
        """Sometimes there."""
        return "here"

    with pytest.raises(ToolDefinitionError, match=r"'sometimes' cannot be brought in.*is_enabled"):
        deck_of(sometimes)


def test_frameworks_are_told_apart_by_class_and_plain_values_are_not_tools() -> None:
    assert framework_of(shift) == "langchain" and framework_of(ReadFileTool()) == "langchain"
    assert framework_of(PydanticTool(scale)) == "pydantic_ai" and framework_of(subtract) == "openai_agents"
    assert framework_of(scale) is None and framework_of(threading.Lock()) is None
    assert json.loads(json.dumps(deck_of(shift, subtract).explain().to_json()))[0]["status"] == "exposed"
