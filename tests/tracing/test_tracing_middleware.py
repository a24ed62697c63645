"""`TracingMiddleware` on its own: the `execute_tool` span around `call_next`, with the GenAI
attributes, and the error envelope's type when the call failed."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from tooldeck import Tool, tool
from tooldeck._core.execution.types import ToolResult
from tooldeck.errors import ErrorEnvelope
from tooldeck.tracing import TracingMiddleware, tool_type


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key


@dataclass
class Call:
    name: str
    id: str
    tool: Tool
    arguments: dict[str, Any] = field(default_factory=dict)


def run(call: Call, result: ToolResult) -> ToolResult:
    seen: list[Call] = []

    async def call_next(c: Call) -> ToolResult:
        seen.append(c)
        return result

    out = asyncio.run(TracingMiddleware().on_call(call, call_next))
    assert seen == [call]
    return out


def test_a_call_runs_inside_an_execute_tool_span(spans: InMemorySpanExporter) -> None:
    result = ToolResult(call_id="c1", name="lookup", content="k")
    assert run(Call("lookup", "c1", lookup, {"key": "k"}), result) is result
    [span] = spans.get_finished_spans()
    assert span.name == "execute_tool lookup"
    assert span.kind == SpanKind.INTERNAL
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.type": "function",
    }
    assert span.status.status_code == StatusCode.UNSET


def test_a_failed_call_sets_error_type_to_the_envelope_type(spans: InMemorySpanExporter) -> None:
    error = ErrorEnvelope("invalid_arguments", "key: field required", "lookup")
    result = ToolResult(call_id="c2", name="lookup", content=error.to_json(), error=error)
    run(Call("lookup", "c2", lookup), result)
    [span] = spans.get_finished_spans()
    assert (span.attributes or {})["error.type"] == "invalid_arguments"
    assert span.status.status_code == StatusCode.ERROR
    assert span.status.description == "key: field required"


def test_an_exception_out_of_call_next_is_recorded_and_raised(spans: InMemorySpanExporter) -> None:
    async def call_next(c: Call) -> ToolResult:
        raise LookupError("gone")

    try:
        asyncio.run(TracingMiddleware().on_call(Call("lookup", "c3", lookup), call_next))
    except LookupError:
        pass
    else:
        raise AssertionError("the exception was swallowed")
    [span] = spans.get_finished_spans()
    assert (span.attributes or {})["error.type"] == "LookupError"
    assert [e.name for e in span.events] == ["exception"]


def test_tools_of_mcp_servers_and_acp_agents_are_extensions() -> None:
    assert [tool_type(s) for s in ("builtin", "user", "config", "mcp", "acp")] == [
        "function",
        "function",
        "function",
        "extension",
        "extension",
    ]
