"""The loop itself, with the `ScriptedModel` we ship and the real Executor: control flow, state
updates, interrupts, promotions (D2), and the one-result-per-call guarantee."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import deck_with, loadout_of
from tooldeck import ToolContext, tool
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolOutput, ToolResult
from tooldeck._core.run_state import Promotions, RunState, RunStateUpdate
from tooldeck.agent import AgentLoop, Conversation, ScriptedModel, ToolView, call, reply
from tooldeck.agent.events import EventLog, StateUpdated, TurnInterrupted
from tooldeck.agent.models.scripted import ScriptExhausted
from tooldeck.agent.toolview import catalog_hash, promote, promoted_names


def make_loop(
    model: ScriptedModel, loadout: Loadout, convo: Conversation, **kw: Any
) -> tuple[AgentLoop, EventLog]:
    log = EventLog()
    runner = Executor(
        loadout, promoted=lambda: promoted_names(convo.state, loadout), session_id=convo.session_id
    )
    return AgentLoop(model, runner=runner, tools=ToolView(lambda: loadout), events=log, **kw), log


def test_a_reply_without_tool_calls_ends_the_turn() -> None:
    model = ScriptedModel([reply(calls=[call("add", {"a": 2, "b": 3})]), reply("5")])
    convo = Conversation("s", system="be brief")
    loop, _ = make_loop(model, loadout_of(["math"]), convo)
    result = asyncio.run(loop.run(convo, "2+3?"))
    assert (result.status, result.text, result.iterations) == ("done", "5", 2)
    assert model.remaining == 0
    second = model.requests[1]
    assert second.system == "be brief"
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert (
        second.messages[2].content == "5"
        and second.messages[2].tool_call_id == second.messages[1].tool_calls[0].id
    )


def test_a_lone_surrogate_in_the_system_prompt_goes_as_u_fffd_and_stays_stored() -> None:
    model = ScriptedModel([reply("ok")])
    convo = Conversation("s", system="be\ud800 brief")
    loop, _ = make_loop(model, loadout_of(["math"]), convo)
    assert asyncio.run(loop.run(convo, "hi")).text == "ok"
    assert model.requests[0].system == "be\ufffd brief"
    assert convo.system == "be\ud800 brief"


def test_scripted_model_says_when_the_script_runs_out() -> None:
    model = ScriptedModel([reply(calls=[call("add", {"a": 1, "b": 1})])])
    convo = Conversation("s")
    loop, _ = make_loop(model, loadout_of(["math"]), convo)
    with pytest.raises(ScriptExhausted, match="request #2"):
        asyncio.run(loop.run(convo, "go"))


class LossyRunner:
    """A broken runner that loses results: the loop must still answer every call id."""

    async def execute(self, calls: Sequence[ToolCall], *, state: RunState | None = None) -> list[ToolResult]:
        return [ToolResult(calls[-1].id, calls[-1].name, "only the last")]


def test_every_call_id_gets_exactly_one_result_even_from_a_lossy_runner() -> None:
    calls = [call("add", {"a": 1, "b": 1}), call("add", {"a": 2, "b": 2}), call("add", {"a": 3, "b": 3})]
    model = ScriptedModel([reply(calls=calls), reply("done")])
    lo = loadout_of(["math"])
    loop = AgentLoop(model, runner=LossyRunner(), tools=ToolView(lambda: lo))
    convo = Conversation("s")
    asyncio.run(loop.run(convo, "go"))
    tool_msgs = [m for m in convo.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_msgs] == [c.id for c in calls]
    assert [m.is_error for m in tool_msgs] == [True, True, False]
    assert "no result" in tool_msgs[0].content


def test_present_files_updates_run_state_with_artifacts(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text("# hi")
    (tmp_path / "data.csv").write_text("a,b")
    model = ScriptedModel(
        [
            reply(
                calls=[
                    call("present_files", {"paths": ["report.md"]}),
                    call("present_files", {"paths": ["data.csv"]}),
                ]
            ),
            reply(calls=[call("present_files", {"paths": ["../etc/passwd"]})]),
            reply("Here they are."),
        ]
    )
    convo = Conversation("s")
    loop, log = make_loop(model, loadout_of(["file"], sandbox={"workspace": str(tmp_path)}), convo)
    asyncio.run(loop.run(convo, "make a report"))
    # Both calls of one batch count: the second saw the first's update.
    assert convo.state.artifacts == ["report.md", "data.csv"]
    assert [e.update.artifacts for e in log.of(StateUpdated)] == [("report.md",), ("report.md", "data.csv")]
    outside = [m for m in convo.messages if m.role == "tool"][-1]
    assert outside.is_error and "outside the workspace" in outside.content
    error = json.loads(outside.content)["error"]
    assert error["message"].startswith(
        "present_files: '../etc/passwd' is outside"
    )  # clean, no exception name


def test_clarify_interrupts_and_the_answer_resumes_the_same_conversation() -> None:
    model = ScriptedModel(
        [
            reply(
                calls=[
                    call("clarify", {"question": "Staging or production?", "choices": ["staging", "prod"]})
                ]
            ),
            reply("Deploying to staging."),
        ]
    )
    convo = Conversation("s")
    loop, log = make_loop(model, loadout_of(["clarify", "math"]), convo)
    first = asyncio.run(loop.run(convo, "deploy it"))
    assert first.status == "interrupted"
    assert first.question == "Staging or production?"
    assert first.interrupt is not None and first.interrupt["choices"] == ["staging", "prod"]
    assert convo.pending == first.interrupt
    assert len(model.requests) == 1  # the model is not called again until the user answers
    assert len(log.of(TurnInterrupted)) == 1
    second = asyncio.run(loop.run(convo, "staging"))
    assert (second.status, second.text) == ("done", "Deploying to staging.")
    assert convo.pending is None
    roles = [(m.role, m.content[:20]) for m in model.requests[1].messages]
    assert roles[-2][0] == "tool" and roles[-1] == ("user", "staging")


PROMOTION: dict[str, Any] = {}


def _deferring(base: Loadout, toolset: str) -> Loadout:
    """`base` with the tools of `toolset` deferred, as the deferral gate does."""
    return Loadout(
        platform=base.platform,
        exposed=tuple(t for t in base.exposed if t.toolset != toolset),
        deferred=tuple(t for t in base.exposed if t.toolset == toolset),
        hidden=base.hidden,
        descriptions=base.descriptions,
        reasons=base.reasons,
        config=base.config,
    )


@tool(toolset="finder")
def load_tools(names: list[str], context: ToolContext | None = None) -> ToolOutput:
    """Stand-in for tool_search: promote deferred tools."""
    state = context.state.copy() if context is not None else RunState()
    return ToolOutput(
        f"loaded {names}", update=RunStateUpdate(promoted=promote(state, PROMOTION["loadout"], names))
    )


def test_deferred_tools_are_sent_only_once_promoted() -> None:
    deck = deck_with(["math", "slow", "finder"])
    deck.registry.register(load_tools)
    loadout = _deferring(deck.loadout(), "slow")
    PROMOTION["loadout"] = loadout
    assert loadout.deferred_names == ("slow_echo", "sync_sleep")
    model = ScriptedModel(
        [
            reply(calls=[call("slow_echo", {"text": "hi", "seconds": 0})]),
            reply(calls=[call("load_tools", {"names": ["slow_echo"]})]),
            reply(calls=[call("slow_echo", {"text": "hi", "seconds": 0})]),
            reply("ok"),
        ]
    )
    convo = Conversation("s")
    loop, _ = make_loop(model, loadout, convo)
    asyncio.run(loop.run(convo, "go"))
    sent = [r.tool_names for r in model.requests]
    assert sent[0] == sent[1] == ("add", "explode", "load_tools")
    assert sent[2] == sent[3] == ("add", "explode", "load_tools", "slow_echo")
    results = [m for m in convo.messages if m.role == "tool"]
    assert json.loads(results[0].content)["error"]["type"] == "not_promoted"
    assert results[2].content == "hi" and not results[2].is_error
    # Same catalog: promotions accumulate; a changed catalog resets them.
    promote(convo.state, loadout, ["sync_sleep"])
    assert promoted_names(convo.state, loadout) == {"slow_echo", "sync_sleep"}
    assert convo.state.promoted is not None
    convo.state.promoted = Promotions("0" * 16, convo.state.promoted.names)
    assert promoted_names(convo.state, loadout) == frozenset()
    assert catalog_hash(loadout) != "0" * 16
    # A record without a catalog hash (a bare list of names) is a mismatch, and the next
    # promotion replaces it.
    state = RunState.from_json({"promoted": ["sync_sleep", "add", "nope"]})
    assert state.promoted is None and promoted_names(state, loadout) == frozenset()
    promote(state, loadout, ["slow_echo", "add"])
    assert state.to_json()["promoted"] == {"catalog": catalog_hash(loadout), "names": ["slow_echo"]}


def test_budget_exhaustion_drops_tool_calls_from_the_summary_reply() -> None:
    model = ScriptedModel(
        [
            reply(calls=[call("add", {"a": 1, "b": 1})]),
            reply("summary", calls=[call("add", {"a": 9, "b": 9})]),
        ]
    )
    convo = Conversation("s")
    loop, _ = make_loop(model, loadout_of(["math"]), convo, max_iterations=1)
    result = asyncio.run(loop.run(convo, "go"))
    assert (result.status, result.text) == ("budget_exhausted", "summary")
    assert model.requests[1].allow_tools is False and model.requests[1].tool_names == ()
    assert convo.messages[-1].tool_calls == ()


def test_an_agent_without_a_session_store_runs_in_memory(tmp_path: Path) -> None:
    from tooldeck.agent import Agent

    model = ScriptedModel([reply(calls=[call("todo", {"action": "add", "items": ["x"]})]), reply("planned")])
    agent = Agent(deck_with(["todo"], home=str(tmp_path)), model, store=False)

    async def main() -> Any:
        convo = agent.new_conversation()
        return await agent.run(convo, "plan"), convo

    result, convo = asyncio.run(main())
    assert result.text == "planned" and convo.state.todo[0].content == "x"
    assert not (tmp_path / "state.db").exists()
    with pytest.raises(ValueError, match="no session store"):
        agent.resume(convo.session_id)
