"""`trace` is a link like the others: a middleware placed before it runs outside the call's
`execute_tool` span, one placed after it inside, and one placed nowhere inside too (the span
covers the whole call, as it always has)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooldeck import Deck, ToolCallRequest, ToolResult, parse_config, tool
from tooldeck._core.execution.middleware import CallNext


@tool
def ping(text: str) -> str:
    """Answer with the text."""
    return text


class SpanSeen:
    def __init__(self) -> None:
        self.names: list[str] = []

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        span: Any = trace.get_current_span()
        self.names.append(getattr(span, "name", "") if span.get_span_context().is_valid else "")
        return await call_next(call)


def test_outside_trace_no_span_inside_it_the_calls_span(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    before, after, nowhere = SpanSeen(), SpanSeen(), SpanSeen()
    config = parse_config({"home": str(tmp_path / "home"), "sandbox": {"workspace": str(tmp_path)}})
    placed = [{"use": before, "before": "trace"}, {"use": after, "after": "trace"}, nowhere]
    deck = Deck(config, tools=[ping], builtins=False, middleware=placed)
    assert deck.call_sync("ping", {"text": "hi"}).content == "hi"
    assert before.names == [""]
    assert after.names == ["execute_tool ping"] and nowhere.names == ["execute_tool ping"]
    assert [s.name for s in spans.get_finished_spans()] == ["execute_tool ping"]
