"""Every tool call of a reply runs under an id of its own, whatever model client produced it:
a repeated or empty id is renamed by the loop before anything runs."""

from __future__ import annotations

import asyncio

from support.agent_kit import loadout_of
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall
from tooldeck.agent import AgentLoop, Conversation, ScriptedModel, ToolView, call, reply
from tooldeck.agent.messages import unique_ids


def run(model: ScriptedModel) -> Conversation:
    convo = Conversation("s")
    loadout = loadout_of(["math"])
    loop = AgentLoop(model, runner=Executor(loadout), tools=ToolView(lambda: loadout))
    asyncio.run(loop.run(convo, "go"))
    return convo


def test_a_repeated_id_runs_both_calls_each_with_its_own_result() -> None:
    first, second = call("add", {"a": 1, "b": 2}, id="X"), call("add", {"a": 5, "b": 5}, id="X")
    model = ScriptedModel([reply(calls=[first, second]), reply("ok")])
    convo = run(model)
    assistant = convo.messages[1]
    ids = [c.id for c in assistant.tool_calls]
    assert ids[0] == "X" and ids[1] != "X" and ids[1]
    answers = [(m.tool_call_id, m.content) for m in convo.messages[2:4]]
    assert answers == [("X", "3"), (ids[1], "10")]
    # The model is shown the same ids it is answered with.
    sent = model.requests[1].messages
    assert [c.id for c in sent[1].tool_calls] == ids
    assert [m.tool_call_id for m in sent[2:4]] == ids


def test_empty_ids_are_filled_in() -> None:
    calls = [call("add", {"a": 1, "b": 1}, id=""), call("add", {"a": 2, "b": 2}, id="")]
    convo = run(ScriptedModel([reply(calls=calls), reply("ok")]))
    ids = [c.id for c in convo.messages[1].tool_calls]
    assert all(ids) and len(set(ids)) == 2
    assert [(m.tool_call_id, m.content) for m in convo.messages[2:4]] == [(ids[0], "2"), (ids[1], "4")]


def test_a_fresh_id_never_takes_one_a_later_call_has() -> None:
    calls = [ToolCall("call_1", "a", "{}"), ToolCall("call_1", "b", "{}"), ToolCall("call_1", "c", "{}")]
    calls.append(ToolCall("call_2", "d", "{}"))
    ids = [c.id for c in unique_ids(calls, "call")]
    assert ids[0] == "call_1" and ids[3] == "call_2"
    assert len(set(ids)) == 4
