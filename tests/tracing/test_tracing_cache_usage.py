"""Each `chat` span carries the request's cache reads and writes under the OpenTelemetry GenAI
names (`gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens`),
beside an input count that includes them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from support.agent_kit import deck_with, settings_for
from tooldeck.agent.models.factory import make_model
from tooldeck.testing.scripted_server import ScriptedServer, Turn
from tracing.otelkit import by_name

READ = "gen_ai.usage.cache_read.input_tokens"
WRITTEN = "gen_ai.usage.cache_creation.input_tokens"


def test_chat_spans_carry_cache_reads_and_writes(spans: InMemorySpanExporter, home: Path) -> None:
    with ScriptedServer([Turn(calls=[("add", {"a": 1, "b": 2})]), Turn("3")], cache_min_tokens=1) as server:
        deck = deck_with(["math"], home=str(home), sandbox={"workspace": str(home)})
        agent = deck.agent(make_model(settings_for(server, "openai")), store=False)

        async def main() -> str:
            try:
                return (await agent.run(agent.new_conversation(), "add")).text
            finally:
                await agent.aclose()

        assert asyncio.run(main()) == "3"
    first, second = (dict(s.attributes or {}) for s in by_name(spans.get_finished_spans(), "chat"))
    assert READ not in first and first[WRITTEN] > 0  # a count of 0 is not reported
    assert 0 < second[READ] < second["gen_ai.usage.input_tokens"]
