"""A real MCP server process receives the caller's trace context in `_meta.traceparent` on every
`tools/call`, from async and sync callers alike (the call crosses to the MCP loop's thread)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooldeck import parse_config, tracing
from tooldeck._deck import Deck

SERVER = Path(__file__).resolve().parent / "servers" / "meta_server.py"


def meta_deck(tmp_path: Path) -> Deck:
    data = {
        "mcp_servers": {"srv": {"command": sys.executable, "args": [str(SERVER)]}},
        "sandbox": {"workspace": str(tmp_path)},
        "home": str(tmp_path / "home"),
        "plugins": {"enabled": False},
    }
    return Deck(parse_config(data, base_dir=str(tmp_path)), builtins=False)


def traceparent(content: str) -> tuple[str, str]:
    """(trace id, parent span id) of the `traceparent` the server was sent (the JSON line of the
    result; tooldeck marks an external server's text as untrusted around it)."""
    [line] = [ln for ln in content.splitlines() if ln.startswith("{")]
    version, trace_id, span_id, flags = json.loads(line)["traceparent"].split("-")
    assert version == "00" and int(flags, 16) & 1  # sampled
    return trace_id, span_id


def test_the_server_gets_the_callers_trace_in_meta(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    tracer = trace.get_tracer("test")
    with meta_deck(tmp_path) as deck:

        async def call_async() -> str:
            return (await deck.call("mcp__srv__meta")).content

        with tracer.start_as_current_span("caller") as caller:
            sent_async = traceparent(asyncio.run(call_async()))
            sent_sync = traceparent(deck.call_sync("mcp__srv__meta").content)
    want = format(caller.get_span_context().trace_id, "032x")
    assert sent_async[0] == sent_sync[0] == want
    # The parent the server is given is the MCP SDK's client span, itself in the caller's trace.
    finished = {format(s.context.span_id, "016x"): s for s in spans.get_finished_spans()}
    for _, span_id in (sent_async, sent_sync):
        sender = finished[span_id]
        assert sender.name == "MCP send tools/call meta"
        assert format(sender.context.trace_id, "032x") == want


def test_inject_and_extract_carry_the_context_through_a_meta_dict(spans: InMemorySpanExporter) -> None:
    with trace.get_tracer("test").start_as_current_span("caller") as caller:
        meta = tracing.inject({"progressToken": 1})
    assert meta["progressToken"] == 1 and meta["traceparent"].startswith("00-")
    context = tracing.extract(meta)
    assert context is not None
    remote = trace.get_current_span(context).get_span_context()
    assert (remote.trace_id, remote.span_id) == (
        caller.get_span_context().trace_id,
        caller.get_span_context().span_id,
    )
    assert tracing.extract({"traceparent": "not a traceparent"}) is None
    assert tracing.extract(None) is None
    with tracing.continued(meta), trace.get_tracer("test").start_as_current_span("served") as served:
        assert served.get_span_context().trace_id == caller.get_span_context().trace_id
