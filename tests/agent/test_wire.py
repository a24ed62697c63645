"""The agent loop through the official SDKs over loopback HTTP, for each wire format.

Every test runs against Chat Completions, Responses and Anthropic Messages, streaming and not:
the scripted server records what the SDK really sent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import PROVIDERS, make_agent
from tooldeck.agent.events import ModelRequested, TextDelta, ToolCallsStarted, ToolResultReady
from tooldeck.agent.models.base import Provider
from tooldeck.agent.runtime import Agent
from tooldeck.testing.scripted_server import ScriptedServer, Turn

CASES = [(p, s) for p in PROVIDERS for s in (False, True)]
IDS = [f"{p}-{'stream' if s else 'plain'}" for p, s in CASES]


def run_turn(
    server: ScriptedServer, provider: Provider, stream: bool, home: Path, prompt: str = "go", **kw: Any
):
    agent, log = make_agent(server, provider, home, stream=stream, **kw)

    async def main():
        convo = agent.new_conversation()
        try:
            return await agent.run(convo, prompt), convo
        finally:
            await agent.aclose()

    result, convo = asyncio.run(main())
    return result, convo, log


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
def test_parallel_calls_answered_in_model_order_with_matching_ids(
    scripted_server: ScriptedServer, provider: Provider, stream: bool, home: Path
) -> None:
    scripted_server.add(
        Turn(
            text="adding",
            calls=[("add", {"a": 1, "b": 2}), ("add", {"a": 40, "b": 2}), ("add", {"a": 5, "b": 5})],
        ),
        Turn(text="The sums are 3, 42 and 10."),
    )
    result, convo, log = run_turn(scripted_server, provider, stream, home)
    assert result.status == "done"
    assert result.text == "The sums are 3, 42 and 10."
    first, second = scripted_server.requests
    assert first.tool_names() == ["add", "explode"]
    # The second request answers exactly the calls of the first reply, in order, by id.
    call_ids = second.tool_call_ids()
    assert len(call_ids) == 3 and len(set(call_ids)) == 3
    assert [cid for cid, _ in second.tool_results()] == call_ids
    assert [content for _, content in second.tool_results()] == ["3", "42", "10"]
    assert second.tool_names() == ["add", "explode"]
    assert [m.role for m in convo.messages] == ["user", "assistant", "tool", "tool", "tool", "assistant"]
    kinds = [type(e).__name__ for e in log.events if not isinstance(e, TextDelta)]
    assert kinds == [
        "ModelRequested",
        "ModelReplied",
        "ToolCallsStarted",
        *["ToolResultReady"] * 3,
        "ModelRequested",
        "ModelReplied",
        "TurnFinished",
    ]
    if stream:
        assert "".join(e.text for e in log.of(TextDelta)).endswith("The sums are 3, 42 and 10.")
    assert second.system and "capable assistant" in second.system


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
def test_tool_errors_unknown_tools_and_bad_arguments_go_back_to_the_model(
    scripted_server: ScriptedServer, provider: Provider, stream: bool, home: Path
) -> None:
    scripted_server.add(
        Turn(
            calls=[
                ("explode", {"message": "disk on fire"}),
                ("ad", {"a": 1, "b": 2}),
                ("add", {"a": "not a number", "b": 2}),
                ("add", {"a": 2}),
            ]
        ),
        Turn(text="I could not finish."),
    )
    result, _, log = run_turn(scripted_server, provider, stream, home)
    assert result.status == "done"
    results = scripted_server.requests[1].tool_results()
    assert len(results) == 4
    envelopes = [json.loads(content)["error"] for _, content in results]
    assert envelopes[0]["type"] == "tool_error" and "disk on fire" in envelopes[0]["message"]
    assert envelopes[1]["type"] == "unknown_tool" and "add" in envelopes[1]["message"]
    assert envelopes[2]["type"] == "invalid_arguments" and "a" in envelopes[2]["message"]
    assert envelopes[3]["type"] == "invalid_arguments" and "b" in envelopes[3]["message"]
    assert all(not e.result.ok for e in log.of(ToolResultReady))
    if provider == "anthropic":
        blocks = [
            b
            for m in scripted_server.requests[1].body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
        assert all(b.get("is_error") is True for b in blocks)


# Anthropic's non-streaming format carries tool input as an object, so it cannot be truncated text.
TEXT_ARGS = [(p, s) for p, s in CASES if p != "anthropic" or s]


@pytest.mark.parametrize(("provider", "stream"), TEXT_ARGS)
def test_truncated_json_arguments_are_never_executed(
    scripted_server: ScriptedServer, provider: Provider, stream: bool, home: Path
) -> None:
    scripted_server.add(Turn(calls=[("add", '{"a": 1, "b": ')]), Turn(text="sorry"))
    run_turn(scripted_server, provider, stream, home)
    [(_, content)] = scripted_server.requests[1].tool_results()
    assert json.loads(content)["error"]["type"] == "invalid_arguments"


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
def test_iteration_budget_ends_with_one_call_without_tools(
    scripted_server: ScriptedServer, provider: Provider, stream: bool, home: Path
) -> None:
    scripted_server.add(
        Turn(calls=[("add", {"a": 1, "b": 1})]),
        Turn(calls=[("add", {"a": 2, "b": 2})]),
        Turn(calls=[("add", {"a": 3, "b": 3})]),
        Turn(text="Summary: I added three pairs."),
    )
    result, _, log = run_turn(scripted_server, provider, stream, home, max_iterations=3)
    assert result.status == "budget_exhausted"
    assert result.text == "Summary: I added three pairs."
    assert len(scripted_server.requests) == 4
    for req in scripted_server.requests[:3]:
        assert req.tool_names() == ["add", "explode"]
    last = scripted_server.requests[3]
    if provider == "anthropic":
        # The history holds tool blocks, so tools stay declared but tool use is off.
        assert last.body["tool_choice"] == {"type": "none"}
    else:
        assert "tools" not in last.body
    assert "used all 3 tool iterations" in last.text_of("user")[-1]
    assert log.of(ModelRequested)[-1].tools == ()
    assert len(log.of(ToolCallsStarted)) == 3


@pytest.mark.parametrize("provider", PROVIDERS)
def test_retries_429_and_5xx_then_succeeds(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    scripted_server.add(
        Turn(status=429, error="slow down", headers={"retry-after": "0"}),
        Turn(status=503, error="overloaded"),
        Turn(text="finally"),
    )
    result, _, log = run_turn(scripted_server, provider, False, home)
    assert result.text == "finally"
    assert len(scripted_server.requests) == 3
    retries = [e for e in log.events if type(e).__name__ == "RetryScheduled"]
    assert [r.attempt for r in retries] == [1, 2]
    assert "rate limited" in retries[0].error and retries[0].delay_s == 0


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("status", "error", "kind", "words"),
    [
        (401, "invalid x-api-key", "auth", ["authentication failed", "API_KEY"]),
        (404, "model 'nope' does not exist", "not_found", ["not found", "--model"]),
        (400, "This model's maximum context length is 8192 tokens", "context_length", ["too long"]),
    ],
)
def test_provider_errors_are_surfaced_clearly(
    scripted_server: ScriptedServer,
    provider: Provider,
    status: int,
    error: str,
    kind: str,
    words: list[str],
    home: Path,
) -> None:
    from tooldeck.errors import ModelError

    scripted_server.add(Turn(status=status, error=error))
    with pytest.raises(ModelError) as info:
        run_turn(scripted_server, provider, False, home)
    assert info.value.kind == kind
    assert len(scripted_server.requests) == 1  # not retried
    for word in words:
        assert word in str(info.value)
    assert error in str(info.value)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unreachable_endpoint_is_a_connection_error_naming_the_url(provider: Provider, home: Path) -> None:
    from tooldeck.errors import ModelError

    server = ScriptedServer().start()
    url = server.openai_url
    server.stop()  # nothing listens on its port any more
    agent, _ = make_agent(_Dead(url), provider, home)
    with pytest.raises(ModelError) as info:
        asyncio.run(_one(agent))
    assert info.value.kind == "connection"
    assert "cannot reach" in str(info.value) and "127.0.0.1" in str(info.value)


class _Dead:
    def __init__(self, url: str) -> None:
        self.openai_url = url


async def _one(agent: Agent) -> object:
    try:
        return await agent.run(agent.new_conversation(), "hi")
    finally:
        await agent.aclose()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_cut_before_any_text_is_retried(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    scripted_server.add(Turn(text="whole answer", cut_after=1), Turn(text="whole answer"))
    result, _, log = run_turn(scripted_server, provider, True, home)
    assert result.text == "whole answer"
    assert len(scripted_server.requests) == 2
    assert len([e for e in log.events if type(e).__name__ == "RetryScheduled"]) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_cut_after_text_reached_the_user_is_an_error_not_a_retry(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    from tooldeck.errors import ModelError

    scripted_server.add(Turn(text="a long answer in pieces", cut_after=3), Turn(text="never asked"))
    with pytest.raises(ModelError, match="ended before") as info:
        run_turn(scripted_server, provider, True, home)
    assert info.value.kind in ("connection", "bad_response")
    assert len(scripted_server.requests) == 1
