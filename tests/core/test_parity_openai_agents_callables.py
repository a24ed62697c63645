"""`@tool` against openai-agents' function-tool cases for callables that are not plain functions
(callable objects, partials, builtins), in our API: each test names the behaviour it stands for."""

from __future__ import annotations

import asyncio
import functools
import operator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from tooldeck import Tool, ToolContext, ToolDefinitionError, tool

from .parity_helpers import props, run


class AsyncDoubler:
    """Double a value.

    Args:
        value: The value to double.
    """

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, value: int) -> int:
        self.calls += 1
        await asyncio.sleep(0)
        return value * 2


def test_async_callable_object() -> None:
    handler = AsyncDoubler()
    t = tool(handler)
    assert (t.name, t.description, t.is_async) == ("AsyncDoubler", "Double a value.", True)
    assert props(t)["value"] == {"description": "The value to double.", "type": "integer"}
    assert run(t, {"value": 4}) == "8" and handler.calls == 1


def test_slotted_and_sync_callable_objects() -> None:
    class Slotted:
        __slots__ = ()

        async def __call__(self, value: int) -> int:
            return value * 2

    class Sync:
        def __call__(self, value: int) -> int:
            return value * 3

    assert run(tool(Slotted()), {"value": 4}) == "8"
    assert run(tool(Sync()), {"value": 4}) == "12"


def test_callable_object_docstrings() -> None:
    class OnlyCall:
        async def __call__(self, value: int) -> int:
            """Double a value.

            Args:
                value: The value to double.
            """
            return value * 2

    class Both:
        """Configure a reusable multiplier."""

        async def __call__(self, value: Annotated[int, "Annotated fallback."]) -> int:
            """Multiply a value.

            Args:
                value: The value supplied to this invocation.
            """
            return value * 2

    only = tool(OnlyCall())
    assert (
        only.description == "Double a value."
        and props(only)["value"]["description"] == "The value to double."
    )
    both = tool(Both())
    assert both.description == "Configure a reusable multiplier."
    assert props(both)["value"]["description"] == "The value supplied to this invocation."


@pytest.mark.parametrize("class_name", ["Café", "A" * 65])
def test_callable_object_with_an_unusable_class_name_needs_a_name(class_name: str) -> None:
    async def call(self: Any, value: int) -> int:
        return value

    handler = type(class_name, (), {"__call__": call})()
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        tool(handler)
    assert tool(name="safe_name")(handler).name == "safe_name"


def test_configured_callable_object_and_the_resolved_method() -> None:
    class Handler:
        async def __call__(self, value: int) -> int:
            return value + 1

    t = tool(name="increment", description="Increment a value.", timeout=1)(Handler())
    assert (t.name, t.description, t.timeout) == ("increment", "Increment a value.", 1)

    async def replacement(self: Handler, value: int) -> int:
        return value + 100

    Handler.__call__ = replacement  # type: ignore[method-assign]
    assert run(t, {"value": 4}) == "5"  # the method the class had when the tool was defined


def test_partial_binds_hidden_arguments() -> None:
    """Differs from openai-agents (which refuses partials), as pydantic-ai does: the remaining
    parameters form the schema, the bound ones are hidden."""

    async def target(prefix: str, value: int, suffix: str = "!") -> str:
        """Format a value."""
        return f"{prefix}{value}{suffix}"

    t = tool(functools.partial(target, "#", suffix="?"))
    assert (t.name, t.description, t.is_async) == ("target", "Format a value.", True)
    assert set(props(t)) == {"value"}
    assert run(t, {"value": 4}) == "#4?"


def test_builtins_without_a_signature_are_refused() -> None:
    for builtin in (operator.itemgetter(0), min, max):
        with pytest.raises(ToolDefinitionError, match="cannot read the signature"):
            tool(name="b")(builtin)


def test_keyword_only_context_and_variadic_context() -> None:
    class KeywordOnly:
        async def __call__(self, *, ctx: ToolContext, value: int) -> int:
            return value

    assert run(tool(KeywordOnly()), {"value": 3}) == "3"
    with pytest.raises(ToolDefinitionError, match="only one plain parameter can take the ToolContext"):

        @tool
        def variadic(*ctx: ToolContext) -> int:
            return len(ctx)


def test_class_scoped_annotations_resolve() -> None:
    class BaseHandler:
        class Payload(BaseModel):
            value: int

        async def __call__(self, payload: Payload) -> int:  # a name of the class scope
            return payload.value

    class Handler(BaseHandler):
        pass

    t = tool(Handler())
    assert props(t)["payload"] == {"$ref": "#/$defs/Payload"}
    assert run(t, {"payload": {"value": 4}}) == "4"


def test_explicit_schema_tool_with_kwargs_handler() -> None:
    t = Tool(
        name="explicit",
        description="d",
        parameters={"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"]},
        handler=lambda **kw: kw["v"] * 2,
        call_style="kwargs",
    )
    assert run(t, {"v": "4"}) == "8"
