"""A handler that yields is refused when the tool is defined: a call has one result, and a
generator object's repr is not it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tooldeck import Tool, ToolDefinitionError, tool


def test_the_decorator_refuses_a_generator_function() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @tool
        def numbers(n: int) -> Iterator[int]:
            """Count."""
            yield from range(n)

    message = str(info.value)
    assert "tool 'numbers'" in message and "a generator function" in message
    assert "return the values instead" in message


def test_the_decorator_refuses_an_async_generator_function() -> None:
    with pytest.raises(ToolDefinitionError, match=r"'numbers'.*an async generator function"):

        @tool
        async def numbers(n: int) -> AsyncIterator[int]:
            """Count."""
            for i in range(n):
                yield i


def test_tool_refuses_a_yielding_handler_or_callable_object() -> None:
    def gen(args: dict[str, Any]) -> Iterator[str]:
        yield "x"

    class Yielder:
        def __call__(self, args: dict[str, Any]) -> Iterator[str]:
            yield "x"

    for handler in (gen, Yielder()):
        with pytest.raises(ToolDefinitionError, match="'g': the handler is a generator function"):
            Tool(name="g", description="G.", parameters={"type": "object"}, handler=handler)


def test_a_function_returning_a_list_is_accepted() -> None:
    @tool
    def numbers(n: int) -> list[int]:
        """Count."""
        return list(range(n))

    assert numbers.call({"n": 3}) == [0, 1, 2]
