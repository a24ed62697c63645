"""An agent run against the scripted model server, through the real `openai` SDK, traced on the
application's tracer provider: `invoke_agent` holds one `chat` span per model request (with the
usage the server reported) and the turn's `execute_tool` spans."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from support.agent_kit import deck_with, settings_for
from tooldeck.agent.models.factory import make_model
from tooldeck.errors import ModelError
from tooldeck.testing.scripted_server import ScriptedServer, Turn
from tracing.otelkit import by_name


def test_a_run_is_an_invoke_agent_span_over_its_chat_and_tool_spans(
    scripted_server: ScriptedServer, spans: InMemorySpanExporter, home: Path
) -> None:
    scripted_server.add(Turn(calls=[("add", {"a": 2, "b": 3}), ("explode", {"message": "boom"})]))
    scripted_server.add(Turn("five, and the other one failed"))
    deck = deck_with(["math"], home=str(home), sandbox={"workspace": str(home)})
    # The deck's own agent: its sessions put `execute_tool` spans on the call path themselves.
    agent_run = deck.agent(make_model(settings_for(scripted_server, "openai")), store=False)
    convo = agent_run.new_conversation()

    async def main() -> str:
        try:
            return (await agent_run.run(convo, "add 2 and 3")).text
        finally:
            await agent_run.aclose()

    assert asyncio.run(main()) == "five, and the other one failed"
    finished = spans.get_finished_spans()
    [agent] = by_name(finished, "invoke_agent")
    chats = by_name(finished, "chat")
    tools = {s.name: s for s in by_name(finished, "execute_tool")}

    assert agent.name == "invoke_agent tooldeck" and agent.kind == SpanKind.INTERNAL
    assert agent.parent is None
    assert dict(agent.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "tooldeck",
        "gen_ai.conversation.id": convo.session_id,
        "gen_ai.request.model": "scripted-model",
        "gen_ai.provider.name": "openai",
    }
    assert [c.name for c in chats] == ["chat scripted-model"] * 2
    for chat in chats:
        attributes = chat.attributes or {}
        assert chat.kind == SpanKind.CLIENT
        assert chat.parent is not None and chat.parent.span_id == agent.context.span_id
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.request.model"] == "scripted-model"
        assert attributes["gen_ai.provider.name"] == "openai"
        for key in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"):
            tokens = attributes[key]
            assert isinstance(tokens, int) and tokens > 0
    assert (chats[0].attributes or {})["gen_ai.response.finish_reasons"] == ("tool_calls",)

    assert sorted(tools) == ["execute_tool add", "execute_tool explode"]
    for span in tools.values():
        assert span.parent is not None and span.parent.span_id == agent.context.span_id
        assert span.context.trace_id == agent.context.trace_id
    # The tool calls ran between the two model requests.
    first_answered, second_asked = chats[0].end_time, chats[1].start_time
    assert first_answered is not None and second_asked is not None
    assert all(first_answered <= (s.start_time or 0) <= second_asked for s in tools.values())
    add, explode = tools["execute_tool add"].attributes or {}, tools["execute_tool explode"].attributes or {}
    assert add["gen_ai.tool.type"] == "function" and "error.type" not in add
    assert str(add["gen_ai.tool.call.id"]).startswith("call")
    assert explode["error.type"] == "tool_error"
    assert tools["execute_tool explode"].status.status_code == StatusCode.ERROR


def test_a_failed_model_request_marks_the_chat_and_the_run(
    scripted_server: ScriptedServer, spans: InMemorySpanExporter, home: Path
) -> None:
    scripted_server.add(Turn(status=401, error="bad key"))
    deck = deck_with(["math"], home=str(home), sandbox={"workspace": str(home)})
    agent_run = deck.agent(make_model(settings_for(scripted_server, "anthropic", max_retries=0)), store=False)

    async def main() -> None:
        try:
            await agent_run.run(agent_run.new_conversation(), "hello")
        finally:
            await agent_run.aclose()

    with pytest.raises(ModelError, match="authentication failed"):
        asyncio.run(main())
    finished = spans.get_finished_spans()
    [agent], [chat] = by_name(finished, "invoke_agent"), by_name(finished, "chat")
    assert (chat.attributes or {})["gen_ai.provider.name"] == "anthropic"
    for span in (chat, agent):
        assert (span.attributes or {})["error.type"] == "ModelError"
        assert span.status.status_code == StatusCode.ERROR


def test_a_reasoning_reply_puts_its_reasoning_tokens_on_the_chat_span(
    scripted_server: ScriptedServer, spans: InMemorySpanExporter, home: Path
) -> None:
    scripted_server.add(Turn("done", reasoning="a long think about the question"), Turn("plain"))
    deck = deck_with(["math"], home=str(home), sandbox={"workspace": str(home)})
    agent_run = deck.agent(make_model(settings_for(scripted_server, "responses")), store=False)

    async def main() -> None:
        try:
            await agent_run.run(agent_run.new_conversation(), "think")
            await agent_run.run(agent_run.new_conversation(), "do not")
        finally:
            await agent_run.aclose()

    asyncio.run(main())
    thought, plain = (dict(c.attributes or {}) for c in by_name(spans.get_finished_spans(), "chat"))
    assert thought["gen_ai.usage.reasoning.output_tokens"] == len("a long think about the question") // 4
    assert "gen_ai.usage.reasoning.output_tokens" not in plain
