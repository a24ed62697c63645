"""Reasoning models through the official SDKs: what a reply carries that its provider wants back
(DeepSeek-style `reasoning_content`, Gemini thought signatures, Responses reasoning items with
encrypted content, Anthropic signed and redacted thinking) goes back verbatim in every later
request, across two tool-calling requests, a resumed session and a sub-agent. The scripted
server refuses, with the provider's own status and message, a history that drops it.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import PROVIDERS, deck_with, settings_for
from tooldeck.agent.builtins.delegate import SUBAGENT_SYSTEM
from tooldeck.agent.events import EventLog, ModelReplied, ReasoningDelta, ReasoningDropped
from tooldeck.agent.messages import Message, ProviderData, tool_message, user
from tooldeck.agent.models.base import ModelRequest, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.models.reasoning import Reasoning
from tooldeck.agent.runtime import Agent
from tooldeck.agent.sessions import SessionStore
from tooldeck.core import ToolResult
from tooldeck.errors import ModelError
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

CASES = [(p, s) for p in PROVIDERS for s in (False, True)]
IDS = [f"{p}-{'stream' if s else 'plain'}" for p, s in CASES]
HIGH = Reasoning(effort="high")


def thinking_turn(provider: str, reasoning: str, **kw: Any) -> Turn:
    """A reply that reasons first, each provider's full kind: Gemini's signatures on Chat
    Completions, a redacted block beside the signed one on Anthropic."""
    if provider == "openai":
        kw.setdefault("thought_signatures", bool(kw.get("calls")))
    if provider == "anthropic":
        kw.setdefault("redacted", True)
    return Turn(reasoning=reasoning, **kw)


def agent_for(server: ScriptedServer, provider: Provider, home: Path, **kw: Any) -> tuple[Agent, EventLog]:
    log = EventLog()
    config = {"home": str(home), "sandbox": {"workspace": str(home)}}
    deck = deck_with(kw.pop("toolsets", ("math",)), **config)
    settings = settings_for(server, provider, reasoning=HIGH, **kw)
    agent = deck.agent(make_model(settings), store=SessionStore(home / "state.db"), events=log)
    return agent, log


def run(agent: Agent, prompt: str | None, convo: Any = None) -> Any:
    async def main() -> Any:
        c = convo or agent.new_conversation()
        try:
            return await agent.run(c, prompt), c
        finally:
            await agent.aclose()

    return asyncio.run(main())


def returned(req: Recorded) -> list[Any]:
    """What the request gave back of each earlier reply's reasoning, whatever the format."""
    if req.kind == "chat":
        return [
            (m.get("reasoning_content"), [c.get("extra_content") for c in m.get("tool_calls") or []])
            for m in req.body["messages"]
            if m["role"] == "assistant"
        ]
    if req.kind == "responses":
        return [
            (i["id"], i.get("encrypted_content"), i["summary"][0]["text"])
            for i in req.body["input"]
            if i.get("type") == "reasoning"
        ]
    return [
        [b.get("thinking") or b.get("data") for b in m["content"] if "thinking" in b["type"]]
        for m in req.body["messages"]
        if m["role"] == "assistant"
    ]


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
def test_reasoning_goes_back_verbatim_through_two_tool_requests(
    scripted_server: ScriptedServer, provider: Provider, stream: bool, home: Path
) -> None:
    scripted_server.add(
        thinking_turn(provider, "first I add", calls=[("add", {"a": 1, "b": 2})]),
        thinking_turn(provider, "now the next sum", calls=[("add", {"a": 3, "b": 4})]),
        thinking_turn(provider, "both known", text="3 and 7"),
    )
    agent, log = agent_for(scripted_server, provider, home, stream=stream)
    result, convo = run(agent, "add twice")
    assert (result.status, result.text) == ("done", "3 and 7")
    first, second, third = scripted_server.requests
    assert returned(first) == []
    # Each later request carries every earlier reply's reasoning, as it was sent.
    assert len(returned(second)) == 1 and len(returned(third)) == 2
    assert returned(third)[0] == returned(second)[0]
    flat = json.dumps(returned(third))
    assert "first I add" in flat and "now the next sum" in flat
    if provider == "openai":
        assert all(extras[0]["google"]["thought_signature"] for _, extras in returned(third))
        assert first.body["reasoning_effort"] == "high"
    elif provider == "responses":
        assert all(enc and enc.startswith("gAAAA") for _, enc, _ in returned(third))
        assert first.body["include"] == ["reasoning.encrypted_content"]
        assert first.body["reasoning"] == {"effort": "high", "summary": "auto"}
        ids = [i.get("id") for i in third.body["input"] if i.get("type") == "function_call"]
        assert all(ids)  # the calls go back with their ids, beside their reasoning
    else:
        assert returned(third)[1][0] == "now the next sum"  # interleaved: thinking between the calls
        assert first.body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
        assert "interleaved-thinking" in first.headers["anthropic-beta"]
    # Shown and counted: the readable reasoning on the messages and the events, tokens in usage.
    thoughts = [m.reasoning for m in convo.messages if m.role == "assistant"]
    assert thoughts == ["first I add", "now the next sum", "both known"]
    if stream:
        assert "".join(e.text for e in log.of(ReasoningDelta)) == "first I addnow the next sumboth known"
    assert [e.reasoning for e in log.of(ModelReplied)] == thoughts
    if provider != "anthropic":  # Anthropic counts thinking inside output tokens, unsplit
        assert result.usage.reasoning_tokens > 0


def without_reasoning(message: Message) -> Message:
    """The reply as a client that drops reasoning sends it back (Responses: the function calls
    keep their ids, their reasoning item is gone)."""
    data = message.provider_data
    assert data is not None
    if data.api != "responses":
        return replace(message, provider_data=None)
    output = [i for i in data.payload["output"] if i["type"] != "reasoning"]
    return replace(message, provider_data=replace(data, payload={"output": output}))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_history_that_drops_the_reasoning_gets_the_providers_400(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    scripted_server.add(
        thinking_turn(provider, "think", calls=[("add", {"a": 1, "b": 2})]),
        Turn(text="fine"),
    )
    loadout = deck_with(("math",)).loadout(agent=True)
    model = make_model(settings_for(scripted_server, provider, reasoning=HIGH, max_retries=0))

    async def main() -> tuple[str, str]:
        try:
            first = await model.complete(ModelRequest(None, [user("go")], loadout))
            [call] = first.message.tool_calls
            answer = tool_message(ToolResult(call_id=call.id, name=call.name, content="3"))
            stripped = without_reasoning(first.message)
            with pytest.raises(ModelError) as refused:
                await model.complete(ModelRequest(None, [user("go"), stripped, answer], loadout))
            kept = await model.complete(ModelRequest(None, [user("go"), first.message, answer], loadout))
            return str(refused.value), kept.message.content
        finally:
            await model.aclose()

    error, text = asyncio.run(main())
    assert text == "fine"
    expected = {
        "openai": "HTTP 400",
        "responses": "HTTP 400",
        "anthropic": "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
    }[provider]
    assert expected in error
    if provider == "openai":
        assert "reasoning_content` in the thinking mode must be passed back" in error
    if provider == "responses":
        assert "without its required 'reasoning' item" in error


def test_gemini_refuses_a_tool_call_without_its_thought_signature(
    scripted_server: ScriptedServer, home: Path
) -> None:
    scripted_server.add(Turn(calls=[("add", {"a": 1, "b": 2})], thought_signatures=True))
    loadout = deck_with(("math",)).loadout(agent=True)
    model = make_model(settings_for(scripted_server, "openai", max_retries=0))

    async def main() -> str:
        try:
            first = await model.complete(ModelRequest(None, [user("go")], loadout))
            [call] = first.message.tool_calls
            answer = tool_message(ToolResult(call_id=call.id, name=call.name, content="3"))
            with pytest.raises(ModelError) as refused:
                stripped = replace(first.message, provider_data=None)
                await model.complete(ModelRequest(None, [user("go"), stripped, answer], loadout))
            return str(refused.value)
        finally:
            await model.aclose()

    error = asyncio.run(main())
    assert "Function call is missing a thought_signature" in error and "default_api:add" in error


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_resumed_session_sends_the_stored_reasoning_back(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    # The turn breaks after the tool call (a server error); a new process resumes it.
    scripted_server.add(
        thinking_turn(provider, "stored thought", calls=[("add", {"a": 2, "b": 2})]),
        Turn(status=500, error="down"),
    )
    agent, _ = agent_for(scripted_server, provider, home, max_retries=0)
    convo = agent.new_conversation()
    with pytest.raises(ModelError):
        run(agent, "add", convo)
    scripted_server.add(Turn(text="four"))
    again, _ = agent_for(scripted_server, provider, home, max_retries=0)
    result, resumed = run(again, None, again.resume(convo.session_id))
    assert result.text == "four"
    assert "stored thought" in json.dumps(returned(scripted_server.requests[-1]))
    assert resumed.messages[1].reasoning == "stored thought"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_sub_agent_sends_its_reasoning_back(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    def respond(req: Recorded) -> Turn:
        if (req.system or "").startswith(SUBAGENT_SYSTEM[:30]):
            if not req.tool_results():
                return thinking_turn(provider, "child thinks", calls=[("add", {"a": 1, "b": 1})])
            return Turn(text=f"child got {req.tool_results()[0][1]}")
        if not req.tool_results():
            return thinking_turn(provider, "delegate it", calls=[("delegate_task", {"goal": "sum"})])
        return Turn(text="parent done")

    scripted_server.add(*[respond] * 4)
    agent, _ = agent_for(scripted_server, provider, home, toolsets=("math", "delegation"))
    result, _ = run(agent, "go")
    assert result.text == "parent done"
    child_second = [r for r in scripted_server.requests if (r.system or "").startswith(SUBAGENT_SYSTEM[:30])][
        1
    ]
    assert "child thinks" in json.dumps(returned(child_second))
    assert "child got 2" in scripted_server.requests[-1].tool_results()[0][1]


def test_reasoning_of_another_model_is_left_out_with_a_note(
    scripted_server: ScriptedServer, home: Path
) -> None:
    scripted_server.add(Turn(text="ok"))
    log = EventLog()
    model = make_model(settings_for(scripted_server, "openai"))
    foreign = Message(
        role="assistant",
        content="earlier",
        reasoning="signed elsewhere",
        provider_data=ProviderData("anthropic", "claude-x", {"content": [{"type": "thinking"}]}),
    )
    own = Message(
        role="assistant",
        content="mine",
        provider_data=ProviderData("chat", "scripted-model", {"message": {"reasoning_content": "kept"}}),
    )

    async def main() -> None:
        try:
            await model.complete(
                ModelRequest(None, [user("a"), foreign, user("b"), own, user("c")]), events=log
            )
        finally:
            await model.aclose()

    asyncio.run(main())
    sent = [m for m in scripted_server.requests[0].body["messages"] if m["role"] == "assistant"]
    assert sent == [
        {"role": "assistant", "content": "earlier"},
        {"role": "assistant", "content": "mine", "reasoning_content": "kept"},
    ]
    [note] = log.of(ReasoningDropped)
    assert note.sources == ("anthropic:claude-x",) and note.target == "chat:scripted-model"


def test_stored_messages_keep_reasoning_and_provider_data(home: Path) -> None:
    data = ProviderData(
        "responses", "m", {"output": [{"type": "reasoning", "id": "rs_1", "encrypted_content": "x"}]}
    )
    message = Message(role="assistant", content="hi", reasoning="why", provider_data=data)
    assert Message.from_dict(json.loads(json.dumps(message.to_dict()))) == message
