"""`tooldeck serve` over stdio continues the trace a client sends in `_meta.traceparent`, and its
spans reach an OTLP/HTTP receiver (the CLI's exporter, on because the endpoint variable is set)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import mcp_types as types
from mcp import Client, StdioServerParameters
from opentelemetry import trace
from opentelemetry.proto.trace.v1.trace_pb2 import Span as WireSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from serve.helpers import BIN, make_config
from tracing.otelkit import otlp_receiver


def test_serve_continues_the_trace_it_receives(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    config = make_config(tmp_path)
    with otlp_receiver() as receiver:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.url
        params = StdioServerParameters(command=str(BIN), args=["serve", "--config", str(config)], env=env)

        async def session() -> str:
            async with Client(params, mode="legacy") as client:
                with trace.get_tracer("test").start_as_current_span("caller"):
                    result = await client.call_tool("shout", {"text": "hi"})
            [block] = result.content
            assert isinstance(block, types.TextContent)
            return block.text

        assert asyncio.run(session()) == "HI"
    [sender] = [s for s in spans.get_finished_spans() if s.name == "MCP send tools/call shout"]
    trace_id = format(sender.context.trace_id, "032x")
    assert receiver.paths and set(receiver.paths) == {"/v1/traces"}
    served = [s for s in receiver.spans if s.trace_id == trace_id]
    assert served, [(s.name, s.trace_id) for s in receiver.spans]
    [server_span] = [s for s in served if s.parent_span_id == format(sender.context.span_id, "016x")]
    assert server_span.name == "tools/call shout" and server_span.kind == WireSpan.SPAN_KIND_SERVER
    assert server_span.attributes["gen_ai.tool.name"] == "shout"
    assert {s.service for s in served} == {"tooldeck"}
