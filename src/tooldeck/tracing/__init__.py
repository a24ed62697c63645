"""OpenTelemetry spans for tool calls, agent runs and model requests (the `otel` extra).

Spans follow the GenAI semantic conventions: `invoke_agent <agent>` around a run, `chat <model>`
per model request and `execute_tool <tool>` per call; MCP requests carry the W3C trace context
in `_meta`, so a traced server's spans join the caller's trace.

Nothing here imports `opentelemetry` until a span is wanted. Tracing is on (`enabled()`) when
the application has already imported `opentelemetry.trace` (it uses OpenTelemetry, so its
`TracerProvider` gets the spans), or when an `OTEL_*` variable is set and the package is
installed; `OTEL_SDK_DISABLED=true` turns it off. (The `mcp` SDK imports `opentelemetry.trace`
itself, so with an MCP source or `serve` tracing is on; without a provider the spans record
nothing.) The command line exports OTLP/HTTP only when `OTEL_EXPORTER_OTLP_ENDPOINT` or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (`export.py`).

The `mcp` SDK itself puts the current context into every request's `_meta` and continues a
received one in its server: the `execute_tool` span current around an MCP call is what the
server is given as parent.
"""

from __future__ import annotations

from tooldeck.tracing.middleware import TracingMiddleware
from tooldeck.tracing.propagation import continued, extract, inject
from tooldeck.tracing.spans import ChatSpan, ToolSpan, agent_span, chat_span, enabled, tool_span, tool_type

__all__ = [
    "ChatSpan",
    "ToolSpan",
    "TracingMiddleware",
    "agent_span",
    "chat_span",
    "continued",
    "enabled",
    "extract",
    "inject",
    "tool_span",
    "tool_type",
]
