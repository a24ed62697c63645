"""Agent-level tools (L3, X7) in real runs: todo, memory, session_search, delegate_task."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import Gauge, loadout_of, make_agent
from tooldeck._core.output import ToolOutput
from tooldeck._core.run_state import RunState
from tooldeck.agent.builtins.delegate import SUBAGENT_SYSTEM, scoped_loadout
from tooldeck.agent.builtins.memory import MemoryFiles, MemoryLimits
from tooldeck.agent.builtins.todo import todo_action
from tooldeck.errors import ToolError
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn


def run(agent: Any, prompt: str, convo: Any = None) -> Any:
    async def main() -> Any:
        c = convo or agent.new_conversation()
        return await agent.run(c, prompt), c

    return asyncio.run(main())


# -- todo ----------------------------------------------------------------------------------


def test_todo_list_add_update_complete() -> None:
    state = RunState()

    def applied(out: ToolOutput) -> ToolOutput:
        assert out.state_update is not None
        state.apply(out.state_update)
        return out

    out = applied(todo_action(state, "add", items=["write tests", "fix bug"]))
    assert "[ ] 1. write tests" in out.content and "(0/2 done)" in out.content
    applied(todo_action(state, "update", id=2, status="in_progress"))
    applied(todo_action(state, "complete", id=1))
    assert [(i.id, i.status) for i in state.todo] == [(1, "completed"), (2, "in_progress")]
    assert "(1/2 done)" in todo_action(state, "list").content
    with pytest.raises(ToolError, match="no task with id 7"):
        todo_action(state, "complete", id=7)
    with pytest.raises(ToolError, match="items"):
        todo_action(state, "add")


def test_todo_state_is_kept_per_session_in_the_store(scripted_server: ScriptedServer, home: Path) -> None:
    scripted_server.add(
        Turn(
            calls=[
                ("todo", {"action": "add", "items": ["a", "b"]}),
                ("todo", {"action": "complete", "id": 1}),
            ]
        ),
        Turn(text="planned"),
        Turn(text="fresh"),
    )
    agent, _ = make_agent(scripted_server, "openai", home, toolsets=["todo"])
    _, convo = run(agent, "plan")
    assert agent.store is not None
    stored = agent.store.load(convo.session_id)
    assert [(i.content, i.status) for i in stored.state.todo] == [
        ("a", "completed"),
        ("b", "pending"),
    ]
    _, other = run(agent, "another session")
    assert other.state.todo == []


# -- memory --------------------------------------------------------------------------------


def test_memory_files_caps_and_edits(tmp_path: Path) -> None:
    files = MemoryFiles(tmp_path, limits=MemoryLimits(memory_chars=120, user_chars=100))
    assert "Added" in files.add("memory", "The repo uses uv, not pip.")
    files.add("user", "Prefers short answers.")
    files.replace("memory", "uses uv", "The repo uses uv (never pip).")
    assert files.entries("memory") == ["The repo uses uv (never pip)."]
    with pytest.raises(ToolError, match="over its cap of 120"):
        files.add("memory", "x" * 150)
    with pytest.raises(ToolError, match="no entry"):
        files.remove("memory", "kubernetes")
    files.add("memory", "Tests run with pytest.")
    with pytest.raises(ToolError, match="2 entries"):
        files.remove("memory", "e")
    files.remove("memory", "pytest")
    assert (tmp_path / "MEMORY.md").read_text().strip() == "The repo uses uv (never pip)."
    assert (tmp_path / "USER.md").exists()


def test_memory_snapshot_enters_the_system_prompt_at_session_start(
    scripted_server: ScriptedServer, home: Path
) -> None:
    scripted_server.add(
        Turn(calls=[("memory", {"action": "add", "target": "user", "content": "The user is called Ada."})]),
        Turn(text="noted"),
        Turn(text="Hello Ada"),
    )
    agent, _ = make_agent(scripted_server, "anthropic", home, toolsets=["memory"])
    _, first = run(agent, "I am Ada, remember it")
    assert "Ada" in (home / "USER.md").read_text()
    # The running session's prompt stays as it was; the next session sees the memory.
    assert "Ada" not in (scripted_server.requests[1].system or "")
    assert "Ada" not in (first.system or "")
    run(agent, "hi")
    assert "About the user (USER.md)" in (scripted_server.requests[2].system or "")
    assert "The user is called Ada." in (scripted_server.requests[2].system or "")


# -- session_search -------------------------------------------------------------------------


def test_session_search_finds_past_sessions_ranked(scripted_server: ScriptedServer, home: Path) -> None:
    scripted_server.add(
        Turn(text="We pinned the kubernetes ingress controller to version 1.9."),
        Turn(text="Lunch is at noon."),
        Turn(calls=[("session_search", {"query": "kubernetes ingress"})]),
        Turn(text="found it"),
    )
    agent, _ = make_agent(scripted_server, "responses", home, toolsets=["session_search"])
    _, k8s = run(agent, "what did we do with the kubernetes ingress?")
    run(agent, "when is lunch?")
    _, current = run(agent, "remind me about kubernetes ingress")
    [(_, content)] = scripted_server.requests[3].tool_results()
    assert k8s.session_id in content
    assert "[kubernetes] [ingress]" in content
    assert current.session_id not in content  # the current session is not searched
    assert "Lunch" not in content


# -- delegate_task ---------------------------------------------------------------------------


def sub_or_parent(parent_turns: list[Turn], gauge: Gauge, *, pause: float = 0.0, company: int = 0) -> Any:
    """A responder: sub-agents add 1+1 then report; the parent follows its own script. A
    sub-agent's request waits for `company` sub-agent requests in flight, then `pause` s."""
    lock = threading.Lock()

    def respond(req: Recorded) -> Turn:
        if (req.system or "").startswith(SUBAGENT_SYSTEM[:30]):
            with gauge:
                gauge.wait_for_company(company)
                time.sleep(pause)
            if not req.tool_results():
                return Turn(calls=[("add", {"a": 1, "b": 1})])
            goal = req.text_of("user")[0]
            return Turn(text=f"report for {goal}: {req.tool_results()[0][1]}")
        with lock:
            return parent_turns.pop(0)

    return respond


def test_delegate_task_runs_scoped_sub_agents_with_a_concurrency_cap(
    scripted_server: ScriptedServer, home: Path
) -> None:
    tasks = [{"goal": f"job {i}", "toolsets": ["math"]} for i in range(4)]
    parent = [Turn(calls=[("delegate_task", {"tasks": tasks})]), Turn(text="all four done")]
    gauge = Gauge()
    responder = sub_or_parent(parent, gauge, pause=0.05, company=2)
    scripted_server.add(*[responder] * 11)
    agent, _ = make_agent(
        scripted_server, "openai", home, toolsets=["math", "delegation", "todo"], delegation_max_concurrency=2
    )
    result, convo = run(agent, "do four jobs")
    assert result.text == "all four done"
    assert gauge.peak == 2  # never more than the cap, and the cap was used
    subs = [r for r in scripted_server.requests if (r.system or "").startswith(SUBAGENT_SYSTEM[:30])]
    assert len(subs) == 8
    for req in subs:
        assert req.tool_names() == ["add", "explode"]  # the math toolset only: no delegation, no todo
    parent_requests = [r for r in scripted_server.requests if r not in subs]
    assert "delegate_task" in parent_requests[0].tool_names()
    [spec] = [t for t in parent_requests[0].body["tools"] if t["function"]["name"] == "delegate_task"]
    assert "at most 2 sub-agents run at a time" in spec["function"]["description"]  # live description (S2)
    [(_, content)] = parent_requests[1].tool_results()
    results = json.loads(content)["results"]
    assert [r["status"] for r in results] == ["done"] * 4
    assert [r["result"] for r in results] == [f"report for Task: job {i}: 2" for i in range(4)]
    assert agent.store is not None
    children = [s for s in agent.store.list_sessions(include_children=True) if s.parent_id]
    assert {s.parent_id for s in children} == {convo.session_id} and len(children) == 4


def test_delegate_task_times_out_and_reports_it(scripted_server: ScriptedServer, home: Path) -> None:
    parent = [Turn(calls=[("delegate_task", {"goal": "slow job"})]), Turn(text="it timed out")]
    scripted_server.add(*[sub_or_parent(parent, Gauge(), pause=5.0)] * 3)  # far past the 0.3 s allowed
    agent, _ = make_agent(
        scripted_server, "openai", home, toolsets=["math", "delegation"], delegation_timeout_s=0.3
    )
    result, _ = run(agent, "go")
    assert result.text == "it timed out"
    parent_req = [r for r in scripted_server.requests if r.tool_results()][-1]
    [(_, content)] = parent_req.tool_results()
    [outcome] = json.loads(content)["results"]
    assert outcome["status"] == "timeout" and "0.3s" in outcome["result"]


def test_sub_agents_never_get_delegation_and_unknown_toolsets_are_named() -> None:
    parent = loadout_of(["math", "delegation", "clarify", "memory", "todo"])
    child = scoped_loadout(parent, None)
    assert "delegate_task" not in child.exposed_names
    assert set(child.exposed_names) == {"add", "explode", "todo"}
    with pytest.raises(ToolError, match=r"toolset\(s\) web are not available.*available: math, todo"):
        scoped_loadout(parent, ["web"])


def test_sub_agents_inherit_the_parent_policy_and_approver(
    scripted_server: ScriptedServer, home: Path
) -> None:
    from tooldeck._core.execution.policy import AutoApprover

    def sub_launches(parent_turns: list[Turn]) -> Any:
        def respond(req: Recorded) -> Turn:
            if (req.system or "").startswith(SUBAGENT_SYSTEM[:30]):
                if not req.tool_results():
                    return Turn(calls=[("launch", {"target": "probe"})])
                return Turn(text=f"sub saw: {req.tool_results()[0][1]}")
            return parent_turns.pop(0)

        return respond

    def outcome(approver: Any) -> dict[str, Any]:
        scripted_server.requests.clear()
        parent = [Turn(calls=[("delegate_task", {"goal": "launch the probe"})]), Turn(text="ok")]
        scripted_server.add(*[sub_launches(parent)] * 4)
        agent, _ = make_agent(scripted_server, "openai", home, toolsets=["danger", "delegation"])
        agent.approver = approver
        run(agent, "go")
        [(_, content)] = scripted_server.requests[-1].tool_results()
        return dict(json.loads(content)["results"][0])

    refused = outcome(None)  # nobody to approve: the sub-agent's call is refused (fail closed)
    assert refused["result"].startswith("sub saw: ") and '"type": "denied"' in refused["result"]
    allowed = outcome(AutoApprover())
    assert allowed["result"] == "sub saw: launched probe"


def test_sub_agents_can_use_another_model(scripted_server: ScriptedServer, home: Path) -> None:
    from tooldeck.agent import ScriptedModel, call, reply

    scripted_server.add(Turn(calls=[("delegate_task", {"goal": "add"})]), Turn(text="parent done"))
    agent, _ = make_agent(scripted_server, "anthropic", home, toolsets=["math", "delegation"])
    cheap = ScriptedModel([reply(calls=[call("add", {"a": 20, "b": 22})]), reply("42")], model_name="cheap")
    agent.delegate_model = cheap
    result, _ = run(agent, "go")
    assert result.text == "parent done"
    assert len(scripted_server.requests) == 2 and len(cheap.requests) == 2
    assert cheap.requests[0].tool_names == ("add", "explode")
    [(_, content)] = scripted_server.requests[1].tool_results()
    assert json.loads(content)["results"][0]["result"] == "42"
    assert agent.store is not None
    child = [s for s in agent.store.list_sessions(include_children=True) if s.parent_id]
    assert [s.model for s in child] == ["cheap"]


def test_a_session_scoped_approval_holds_for_later_turns_of_the_conversation(
    scripted_server: ScriptedServer, home: Path
) -> None:
    from tooldeck._core.execution.policy import ApprovalAnswer, CallbackApprover

    asked: list[str] = []

    def approve(request: Any) -> ApprovalAnswer:
        asked.append(request.call.tool.name)
        return ApprovalAnswer(True, "session")

    scripted_server.add(
        Turn(calls=[("launch", {"target": "a"})]),
        Turn(text="one"),
        Turn(calls=[("launch", {"target": "b"})]),
        Turn(text="two"),
    )
    agent, _ = make_agent(scripted_server, "openai", home, toolsets=["danger"])
    agent.approver = CallbackApprover(approve)

    async def two_turns() -> None:
        convo = agent.new_conversation()
        await agent.run(convo, "first")
        await agent.run(convo, "second")

    asyncio.run(two_turns())
    assert asked == ["launch"]
    assert scripted_server.requests[3].tool_results()[-1][1] == "launched b"
