"""X3: deferred-and-not-promoted, skills, approvals (deny / ask / allow; fail closed)."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest

from tooldeck import Tool
from tooldeck._core.execution.events import CollectingSink
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.policy import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    AutoApprover,
    CallbackApprover,
    ChainPolicy,
    Decision,
    DenyApprover,
    TerminalApprover,
)
from tooldeck._core.execution.types import ValidatedCall

from .helpers import call, loadout, one, run


def counting_tool(name: str, **options: Any) -> tuple[Tool, list[dict[str, object]]]:
    ran: list[dict[str, object]] = []
    t = Tool(
        name=name,
        description="d",
        parameters={"type": "object", "properties": {"x": {"type": "integer"}}},
        handler=lambda a: ran.append(a) or f"{name} ran",
        **options,
    )
    return t, ran


def test_deferred_tool_not_promoted_is_refused_with_a_pointer_to_tool_search() -> None:
    hidden_tool, ran = counting_tool("mcp__gh__search")
    ex = Executor(loadout(deferred=[hidden_tool]))
    result = one(ex, "mcp__gh__search", {"x": 1})
    assert result.error is not None and result.error.type == "not_promoted"
    assert "tool_search" in result.error.message and result.error.retryable
    assert ran == []


def test_promoted_names_as_a_set_or_a_live_function() -> None:
    deferred_tool, ran = counting_tool("later")
    assert one(Executor(loadout(deferred=[deferred_tool]), promoted=lambda: {"later"}), "later").ok
    promoted: set[str] = set()
    ex = Executor(loadout(deferred=[deferred_tool]), promoted=lambda: promoted)
    assert one(ex, "later").error is not None
    promoted.add("later")  # tool_search promoted it meanwhile
    assert one(ex, "later").ok
    assert len(ran) == 2


def test_skills_allowed_from_the_loadout_refuse_other_tools() -> None:
    allowed, _ = counting_tool("allowed")
    other, ran = counting_tool("other")
    ex = Executor(loadout(allowed, other, skills_allowed=frozenset({"allowed"})))
    assert one(ex, "allowed").ok
    result = one(ex, "other")
    assert result.error is not None and result.error.type == "denied"
    assert "allowed_tools" in result.error.message
    assert ran == []


def test_no_skill_list_allows_everything_and_essential_tools_pass_any_list() -> None:
    a, _ = counting_tool("a")
    ex = Executor(loadout(a, skills_allowed=frozenset({"b"})))
    assert one(ex, "a").error is not None
    assert one(Executor(loadout(a, skills_allowed=None)), "a").ok
    essential = a.with_options(essential=True)
    assert one(Executor(loadout(essential, skills_allowed=frozenset({"b"}))), "a").ok


@pytest.mark.parametrize(
    ("mode", "approver", "outcome"),
    [
        ("allow", None, "ok"),
        ("deny", None, "denied"),
        ("deny", AutoApprover(), "denied"),  # deny means deny, even with --yes
        ("ask", None, "denied"),  # nobody to ask: fail closed
        ("ask", DenyApprover(), "denied"),
        ("ask", AutoApprover(), "ok"),
    ],
)
def test_requires_approval_follows_the_mode(mode: str, approver: Approver | None, outcome: str) -> None:
    t, ran = counting_tool("rm_rf", requires_approval=True)
    ex = Executor(loadout(t, approvals=mode), approver=approver)
    result = one(ex, "rm_rf", {"x": 1})
    assert (result.error.type if result.error else "ok") == outcome
    assert len(ran) == (1 if outcome == "ok" else 0)
    if outcome == "denied":
        assert "requires approval" in result.content


def test_tools_without_the_flag_need_no_approval() -> None:
    t, _ = counting_tool("safe")
    assert one(Executor(loadout(t, approvals="deny")), "safe").ok


def test_callback_approver_sees_the_validated_call_and_can_grant_for_the_session() -> None:
    t, ran = counting_tool("deploy", requires_approval=True)
    asked: list[ApprovalRequest] = []

    def answer(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer(True, "session")

    ex = Executor(loadout(t), approver=CallbackApprover(answer))
    assert one(ex, "deploy", {"x": "2"}).ok
    assert one(ex, "deploy", {"x": 3}).ok
    assert len(asked) == 1  # the session grant answered the second time
    assert asked[0].call.arguments == {"x": 2}
    assert len(ran) == 2


def test_a_failing_or_refusing_callback_fails_closed() -> None:
    t, ran = counting_tool("deploy", requires_approval=True)

    def broken(request: ApprovalRequest) -> bool:
        raise RuntimeError("gateway down")

    result = one(Executor(loadout(t), approver=CallbackApprover(broken)), "deploy")
    assert result.error is not None and "gateway down" in result.error.message

    async def no(request: ApprovalRequest) -> bool:
        return False

    assert one(Executor(loadout(t), approver=CallbackApprover(no)), "deploy").error is not None
    assert ran == []


def test_terminal_approver_without_a_terminal_says_no() -> None:
    t, ran = counting_tool("deploy", requires_approval=True)
    ex = Executor(loadout(t), approver=TerminalApprover(stdin=io.StringIO("y\n")))
    result = one(ex, "deploy")
    assert result.error is not None and "not a terminal" in result.error.message
    assert ran == []


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_approver_reads_the_answer() -> None:
    t, ran = counting_tool("deploy", requires_approval=True)
    out = io.StringIO()
    ex = Executor(loadout(t), approver=TerminalApprover(stdin=_Tty("y\n"), stdout=out))
    assert one(ex, "deploy", {"x": 7}).ok
    assert "deploy(x=7)" in out.getvalue()
    assert len(ran) == 1


class _ShellPolicy:
    """A custom policy as the safety issue will plug in: deny some argument values, ask for others."""

    async def decide(self, call: ValidatedCall) -> Decision:
        x = call.arguments.get("x")
        if x == 0:
            return Decision.deny("x=0 is blocked", rule="zero")
        if x == 1:
            return Decision.ask("x=1 needs a human", rule="one")
        return Decision.allow()


def test_custom_policy_denies_asks_and_allows_and_events_record_it() -> None:
    t, ran = counting_tool("t")
    sink = CollectingSink()
    ex = Executor(loadout(t), policy=ChainPolicy(_ShellPolicy()), approver=DenyApprover(), events=sink)
    results = run(ex, [call("t", {"x": 0}, "a"), call("t", {"x": 1}, "b"), call("t", {"x": 2}, "c")])
    assert [r.error.type if r.error else "ok" for r in results] == ["denied", "denied", "ok"]
    assert "x=0 is blocked" in results[0].content
    assert [e.outcome for e in sink.of("a") if e.kind == "policy"] == ["deny"]
    assert [e.outcome for e in sink.of("b") if e.kind == "policy"] == ["ask", "refused"]
    assert ran == [{"x": 2}]


def test_approvals_in_a_batch_are_asked_one_at_a_time() -> None:
    t, _ = counting_tool("deploy", requires_approval=True)
    active = 0
    peak = 0

    async def slow_yes(request: ApprovalRequest) -> bool:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.02)
        active -= 1
        return True

    ex = Executor(loadout(t), approver=CallbackApprover(slow_yes))
    results = run(ex, [call("deploy", {"x": i}, f"c{i}") for i in range(5)])
    assert all(r.ok for r in results)
    assert peak == 1


class _BrokenPolicy:
    async def decide(self, call: ValidatedCall) -> Decision:
        raise KeyError("rules.yaml")


def test_a_failing_policy_fails_closed() -> None:
    t, ran = counting_tool("t")
    result = one(Executor(loadout(t), policy=_BrokenPolicy()), "t")
    assert result.error is not None and result.error.type == "denied"
    assert "policy check failed" in result.error.message and "rules.yaml" in result.error.message
    assert ran == []


def test_cancelling_while_a_call_awaits_approval_answers_it_as_cancelled() -> None:
    t, ran = counting_tool("deploy", requires_approval=True)

    async def never(request: ApprovalRequest) -> bool:
        await asyncio.Event().wait()
        return True

    ex = Executor(loadout(t), approver=CallbackApprover(never))

    async def main() -> str:
        task = asyncio.create_task(ex.execute([call("deploy")]))
        await asyncio.sleep(0.05)
        ex.cancel()
        [result] = await task
        await asyncio.sleep(0)  # the caller's task is usable afterwards
        assert result.error is not None
        return result.error.type

    assert asyncio.run(main()) == "cancelled"
    assert ran == []
