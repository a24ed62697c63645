"""Properties of the history translations (Hypothesis): any valid conversation survives a round
trip through storage and becomes a well-formed request in every wire format."""

from __future__ import annotations

import json
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck._core.execution.types import ToolCall
from tooldeck.agent.messages import Message, ProviderData
from tooldeck.agent.models.anthropic import anthropic_messages
from tooldeck.agent.models.openai_chat import chat_messages
from tooldeck.agent.models.openai_responses import response_input

text = st.text(max_size=20)
names = st.sampled_from(["add", "read_file", "todo"])
args = st.one_of(st.just("{}"), st.just('{"a": 1}'), st.just('{"a": '), st.none())


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    """user, then rounds of assistant (maybe with calls) + one tool result per call, maybe more users."""
    out = [Message("user", draw(text))]
    counter = 0
    for _ in range(draw(st.integers(0, 4))):
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            counter += 1
            calls.append(ToolCall(f"c{counter}", draw(names), draw(args)))
        reply = Message("assistant", draw(text), tuple(calls))
        if draw(st.booleans()):
            reply = Message(
                reply.role, reply.content, reply.tool_calls, provider_data=_received(reply, counter)
            )
        out.append(reply)
        for c in calls:
            out.append(
                Message("tool", draw(text), tool_call_id=c.id, name=c.name, is_error=draw(st.booleans()))
            )
        if draw(st.booleans()):
            out.append(Message("user", draw(text)))
    return out


def _received(m: Message, n: int) -> ProviderData:
    """What each wire format's reasoning reply carried, under the ids the provider gave (the
    history's may differ: ids are made unique after the reply)."""
    kind = ("chat", "responses", "anthropic")[n % 3]
    if kind == "chat":
        return ProviderData(
            kind, "m", {"message": {"reasoning_content": f"r{n}"}, "tool_calls": [{}] * len(m.tool_calls)}
        )
    if kind == "responses":
        output: list[dict[str, object]] = [
            {"type": "reasoning", "id": f"rs{n}", "summary": [], "encrypted_content": "e"}
        ]
        output += [
            {
                "type": "function_call",
                "id": f"fc{c.id}",
                "call_id": "stale",
                "name": c.name,
                "arguments": "{}",
            }
            for c in m.tool_calls
        ]
        return ProviderData(kind, "m", {"output": output})
    blocks: list[dict[str, object]] = [{"type": "thinking", "thinking": f"t{n}", "signature": "s"}]
    blocks += [{"type": "tool_use", "id": "stale", "name": c.name, "input": {}} for c in m.tool_calls]
    return ProviderData(kind, "m", {"content": blocks})


@settings(max_examples=150, deadline=None)
@given(histories())
def test_messages_round_trip_through_their_stored_form(history: list[Message]) -> None:
    for m in history:
        again = Message.from_dict(json.loads(json.dumps(m.to_dict())))
        assert again.role == m.role and again.content == m.content
        assert again.tool_call_id == m.tool_call_id and again.is_error == m.is_error
        assert [(c.id, c.name) for c in again.tool_calls] == [(c.id, c.name) for c in m.tool_calls]
        assert again.provider_data == m.provider_data


@settings(max_examples=150, deadline=None)
@given(histories())
def test_anthropic_history_alternates_and_pairs_every_result_with_an_earlier_call(
    history: list[Message],
) -> None:
    out = anthropic_messages(tuple(history))
    roles = [m["role"] for m in out]
    assert roles[0] == "user"
    assert all(a != b for a, b in pairwise(roles))
    seen: set[str] = set()
    for m in out:
        assert m["content"], "no empty turns"
        for block in m["content"]:
            if block["type"] == "tool_use":
                assert isinstance(block["input"], dict)
                seen.add(block["id"])
            if block["type"] == "tool_result":
                assert block["tool_use_id"] in seen
    results = [b for m in out for b in m["content"] if b["type"] == "tool_result"]
    assert len(results) == sum(1 for m in history if m.role == "tool")


@settings(max_examples=150, deadline=None)
@given(histories())
def test_openai_formats_answer_every_call_id_once(history: list[Message]) -> None:
    chat = chat_messages("sys", tuple(history))
    calls = [c["id"] for m in chat for c in m.get("tool_calls") or []]
    answers = [m["tool_call_id"] for m in chat if m["role"] == "tool"]
    assert calls == answers
    assert all(isinstance(c["function"]["arguments"], str) for m in chat for c in m.get("tool_calls") or [])
    items = response_input(tuple(history))
    fc = [i["call_id"] for i in items if i.get("type") == "function_call"]
    out = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert fc == out == calls


@settings(max_examples=150, deadline=None)
@given(histories())
def test_what_a_reply_carried_goes_back_in_place_under_the_historys_call_ids(history: list[Message]) -> None:
    def carried(kind: str) -> tuple[Message, ...]:  # as `carried` leaves it: only this format's data
        return tuple(
            m
            if m.provider_data is None or m.provider_data.api == kind
            else Message(m.role, m.content, m.tool_calls)
            for m in history
        )

    calls = [c.id for m in history for c in m.tool_calls]
    anthropic = anthropic_messages(carried("anthropic"))
    assert [b["id"] for m in anthropic for b in m["content"] if b["type"] == "tool_use"] == calls
    thinking = [b["thinking"] for m in anthropic for b in m["content"] if b["type"] == "thinking"]
    assert len(thinking) == sum(1 for m in history if m.provider_data and m.provider_data.api == "anthropic")
    items = response_input(carried("responses"))
    fc = [i["call_id"] for i in items if i.get("type") == "function_call"]
    assert fc == [i["call_id"] for i in items if i.get("type") == "function_call_output"] == calls
    for n, item in enumerate(items):  # each kept function call follows its reasoning item
        if item.get("type") == "function_call" and "id" in item:
            assert any(i.get("type") == "reasoning" for i in items[:n])
    chat = chat_messages(None, carried("chat"))
    kept = [m["reasoning_content"] for m in chat if "reasoning_content" in m]
    assert len(kept) == sum(1 for m in history if m.provider_data and m.provider_data.api == "chat")
