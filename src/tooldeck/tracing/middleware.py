"""`TracingMiddleware`: an `execute_tool` span around each call of the call path."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

from tooldeck.tracing.spans import tool_span, tool_type


class _Tool(Protocol):
    @property
    def source(self) -> str: ...


class _Call(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def id(self) -> str: ...

    @property
    def arguments(self) -> Mapping[str, Any]: ...

    @property
    def tool(self) -> _Tool | None: ...


class _Envelope(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def message(self) -> str: ...


class _Result(Protocol):
    @property
    def error(self) -> _Envelope | None: ...


C = TypeVar("C", bound=_Call)
R = TypeVar("R", bound=_Result)


class TracingMiddleware:
    """A link of the call path: the call runs inside `execute_tool <name>`; a result carrying an
    error envelope marks the span failed with the envelope's type as `error.type`."""

    async def on_call(self, call: C, call_next: Callable[[C], Awaitable[R]]) -> R:
        tool = call.tool
        kind = tool_type(tool.source) if tool is not None else "function"
        with tool_span(call.name, call_id=call.id, type=kind) as span:
            result = await call_next(call)
            if result.error is not None:
                span.failed(result.error.type, result.error.message)
            return result


__all__ = ["TracingMiddleware"]
