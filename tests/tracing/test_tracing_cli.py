"""`tooldeck run` exports its spans over OTLP/HTTP when the standard endpoint variable is set:
the run's `invoke_agent` span over one `chat` span per model request, as a loopback receiver
decodes them from the wire."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span as WireSpan

from support.cli import tooldeck_command
from tooldeck.testing.scripted_server import ScriptedServer, Turn
from tracing.otelkit import otlp_receiver

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))


def traced(project: Path, otel: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` in `project` (its home there), with only the OTEL variables given and no
    real model's keys."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OPENAI_", "ANTHROPIC_"))}
    env.update({**otel, "TOOLDECK_HOME": str(project / "home")})
    return subprocess.run(
        [*tooldeck_command(), *args], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("variable", ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"])
def test_run_exports_its_spans_to_the_endpoint(
    tmp_path: Path, scripted_server: ScriptedServer, variable: str
) -> None:
    (tmp_path / "tooldeck.yaml").write_text(f"home: {tmp_path / 'home'}\nsandbox: {{workspace: .}}\n")
    (tmp_path / "note.txt").write_text("tides at six\n")
    scripted_server.add(Turn(calls=[("read_file", {"path": "note.txt"})]))
    scripted_server.add(Turn("the note says tides at six"))
    with otlp_receiver() as receiver:
        # The general variable is a base URL (the exporter adds /v1/traces), the traces one is used as is.
        endpoint = receiver.url if variable == "OTEL_EXPORTER_OTLP_ENDPOINT" else f"{receiver.url}/traces-in"
        model = ("--model", "scripted-model", "--base-url", scripted_server.openai_url)
        ran = traced(tmp_path, {variable: endpoint}, "run", "what does the note say?", *model)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "the note says tides at six"
    assert set(receiver.paths) == {
        "/v1/traces" if variable == "OTEL_EXPORTER_OTLP_ENDPOINT" else "/traces-in"
    }
    [agent] = [s for s in receiver.spans if s.name == "invoke_agent tooldeck"]
    chats = [s for s in receiver.spans if s.name.startswith("chat ")]
    assert agent.parent_span_id == "" and agent.kind == WireSpan.SPAN_KIND_INTERNAL
    assert agent.service == "tooldeck"
    assert agent.attributes["gen_ai.request.model"] == "scripted-model"
    assert [c.name for c in chats] == ["chat scripted-model"] * 2
    for chat in chats:
        assert (chat.trace_id, chat.parent_span_id) == (agent.trace_id, agent.span_id)
        assert chat.kind == WireSpan.SPAN_KIND_CLIENT
        assert chat.attributes["gen_ai.provider.name"] == "openai"
        assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert [c.attributes["gen_ai.response.finish_reasons"] for c in chats] == [["tool_calls"], ["stop"]]
    # The tool call, on the call path's own chain, under the run.
    [read] = [s for s in receiver.spans if s.name.startswith("execute_tool ")]
    assert read.name == "execute_tool read_file" and read.attributes["gen_ai.tool.name"] == "read_file"
    assert (read.trace_id, read.parent_span_id) == (agent.trace_id, agent.span_id)


def test_batch_workers_export_each_items_run(tmp_path: Path) -> None:
    (tmp_path / "tooldeck.yaml").write_text(f"home: {tmp_path / 'home'}\nsandbox: {{workspace: .}}\n")
    (tmp_path / "in.jsonl").write_text('{"id": "a", "prompt": "first"}\n{"id": "b", "prompt": "second"}\n')
    # Every conversation gets the same answer, whichever worker asks.
    with ScriptedServer(responder=lambda request: Turn("done")) as server, otlp_receiver() as receiver:
        model = ("--model", "scripted-model", "--base-url", server.openai_url)
        endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
        ran = traced(tmp_path, endpoint, "batch", "in.jsonl", "--out", "out.jsonl", *model)
    assert ran.returncode == 0, ran.stderr
    runs = [s for s in receiver.spans if s.name == "invoke_agent tooldeck"]
    assert len(runs) == 2 and len({s.trace_id for s in runs}) == 2
    chats = [s for s in receiver.spans if s.name == "chat scripted-model"]
    assert sorted((c.trace_id, c.parent_span_id) for c in chats) == sorted(
        (r.trace_id, r.span_id) for r in runs
    )
