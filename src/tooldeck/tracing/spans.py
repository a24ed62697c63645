"""The GenAI spans: `invoke_agent`, `chat` and `execute_tool`, each a context manager.

When tracing is off each helper yields an object whose setters do nothing, so callers never
branch on it. Span kinds and attribute names are those of the GenAI semantic conventions.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from tooldeck._utils.version import __version__

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

ToolType = Literal["function", "extension", "datastore"]

# Where a tool comes from decides its `gen_ai.tool.type`: our own code runs a function; an MCP
# server or an ACP agent is an extension the agent reaches out to.
_EXTENSION_SOURCES = frozenset({"mcp", "acp"})


def tool_type(source: str) -> ToolType:
    """`gen_ai.tool.type` for a tool of this source ("builtin", "user", "config", "mcp", "acp")."""
    return "extension" if source in _EXTENSION_SOURCES else "function"


def enabled() -> bool:
    """Whether spans are made: OpenTelemetry is already in use in this process, or asked for by
    an `OTEL_*` variable and installed. Cheap enough to ask on every call."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if "opentelemetry.trace" in sys.modules:
        return True
    return any(key.startswith("OTEL_") for key in os.environ) and _importable()


@functools.cache
def _importable() -> bool:
    try:
        import opentelemetry.trace  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def _tracer() -> Tracer:
    # The global tracer provider's tracer; set later by the application, it is used from then on.
    from opentelemetry import trace

    return trace.get_tracer("tooldeck", __version__)


@contextlib.contextmanager
def _span(name: str, kind: str, attributes: Mapping[str, Any]) -> Iterator[Span]:
    """A current span; an exception escaping it is recorded with `error.type` (its class)."""
    from opentelemetry.trace import SpanKind, StatusCode

    span_kind: SpanKind = getattr(SpanKind, kind)
    with _tracer().start_as_current_span(
        name,
        kind=span_kind,
        attributes=dict(attributes),
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield span
        except BaseException as exc:  # boundary: every way out of the span is recorded, then raised on
            span.set_attribute("error.type", type(exc).__qualname__)
            span.set_status(StatusCode.ERROR, str(exc)[:200])
            if not isinstance(exc, GeneratorExit):
                span.record_exception(exc)
            raise


@contextlib.contextmanager
def agent_span(
    name: str, *, conversation_id: str | None = None, model: str | None = None, provider: str | None = None
) -> Iterator[None]:
    """`invoke_agent <name>` (INTERNAL) around one run of an agent."""
    if not enabled():
        yield None
        return
    attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    optional = {
        "gen_ai.conversation.id": conversation_id,
        "gen_ai.request.model": model,
        "gen_ai.provider.name": provider,
    }
    attributes.update({k: v for k, v in optional.items() if v})
    with _span(f"invoke_agent {name}", "INTERNAL", attributes):
        yield None


class ChatSpan:
    """What a `chat` span learns from the reply: the tokens used, the model, why it stopped."""

    def __init__(self, span: Span | None) -> None:
        self.span = span

    def usage(
        self,
        input_tokens: int | None,
        output_tokens: int | None,
        *,
        reasoning: int | None = None,
        cache_read: int | None = None,
        cache_creation: int | None = None,
    ) -> None:
        """Token counts as the provider reported them (None or a count of 0 means not reported):
        `input_tokens` the whole prompt, cached part included; `reasoning` the part of the output
        spent reasoning; `cache_read` / `cache_creation` the part of the input read from / written
        to the provider's prompt cache."""
        if self.span is None:
            return
        counts = {
            "gen_ai.usage.input_tokens": input_tokens,
            "gen_ai.usage.output_tokens": output_tokens,
            "gen_ai.usage.reasoning.output_tokens": reasoning,
            "gen_ai.usage.cache_read.input_tokens": cache_read,
            "gen_ai.usage.cache_creation.input_tokens": cache_creation,
        }
        for name, count in counts.items():
            if count:
                self.span.set_attribute(name, count)

    def response(self, model: str | None, finish_reason: str | None) -> None:
        if self.span is None:
            return
        if model:
            self.span.set_attribute("gen_ai.response.model", model)
        if finish_reason:
            self.span.set_attribute("gen_ai.response.finish_reasons", [finish_reason])


@contextlib.contextmanager
def chat_span(model: str, provider: str) -> Iterator[ChatSpan]:
    """`chat <model>` (CLIENT) around one model request."""
    if not enabled():
        yield ChatSpan(None)
        return
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.provider.name": provider,
    }
    with _span(f"chat {model}", "CLIENT", attributes) as span:
        yield ChatSpan(span)


class ToolSpan:
    """An `execute_tool` span, told when the call failed (the error envelope's type)."""

    def __init__(self, span: Span | None) -> None:
        self.span = span

    def failed(self, error_type: str, message: str = "") -> None:
        if self.span is None:
            return
        from opentelemetry.trace import StatusCode

        self.span.set_attribute("error.type", error_type)
        self.span.set_status(StatusCode.ERROR, message[:200] or error_type)


@contextlib.contextmanager
def tool_span(
    name: str, *, call_id: str | None = None, type: ToolType = "function", description: str | None = None
) -> Iterator[ToolSpan]:
    """`execute_tool <name>` (INTERNAL) around one tool call."""
    if not enabled():
        yield ToolSpan(None)
        return
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": type}
    if call_id:
        attributes["gen_ai.tool.call.id"] = call_id
    if description:
        attributes["gen_ai.tool.description"] = description
    with _span(f"execute_tool {name}", "INTERNAL", attributes) as span:
        yield ToolSpan(span)


__all__ = ["ChatSpan", "ToolSpan", "ToolType", "agent_span", "chat_span", "enabled", "tool_span", "tool_type"]
