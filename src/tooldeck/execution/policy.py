"""The policy step: may this validated call run now?

The executor always refuses, before any policy, a deferred tool that was not promoted by
`tool_search` (`not_promoted`) and a tool outside the active skills' `allowed_tools`
(`denied`). Then a `Policy` decides allow / deny / ask; on ask, an `Approver` answers. With
nobody to ask (non-interactive use), the answer is no: approvals fail closed.

The default policy is `ApprovalFlagPolicy`: tools with `requires_approval=True` follow
`approvals.mode` (allow runs them, deny refuses them, ask asks the approver). The safety issue
plugs in richer policies (shell analysis, grants) through the same Protocol.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, Protocol, TextIO

from tooldeck.context import Approvals, ToolContext
from tooldeck.execution.runner import run_sync
from tooldeck.execution.types import ToolCall, ValidatedCall
from tooldeck.tool import Tool

DecisionKind = Literal["allow", "deny", "ask"]
ApprovalMode = Literal["ask", "deny", "allow"]
GrantScope = Literal["once", "session", "always"]


@dataclass(frozen=True, slots=True)
class Decision:
    """A policy's verdict; `reason` is shown to the model (deny) or the approver (ask)."""

    kind: DecisionKind
    reason: str = ""
    # What rule matched, so a grant can be bound to it (never to a whole category).
    rule: str | None = None

    @classmethod
    def allow(cls) -> Decision:
        return ALLOW

    @classmethod
    def deny(cls, reason: str, rule: str | None = None) -> Decision:
        return cls("deny", reason, rule)

    @classmethod
    def ask(cls, reason: str, rule: str | None = None) -> Decision:
        return cls("ask", reason, rule)


ALLOW = Decision("allow")


class Grants:
    """Approvals granted for longer than one call, each bound to a tool and the rule that asked.

    One object per session, shared by every executor of that session (thread-safe).
    """

    def __init__(self) -> None:
        self._granted: set[tuple[str, str | None]] = set()
        self._lock = threading.Lock()

    def covers(self, tool: str, rule: str | None) -> bool:
        return (tool, rule) in self._granted

    def add(self, tool: str, rule: str | None) -> None:
        with self._lock:
            self._granted.add((tool, rule))


class Policy(Protocol):
    """Decides, for one validated call, whether it may run."""

    async def decide(self, call: ValidatedCall) -> Decision: ...


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    call: ValidatedCall
    reason: str
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    approved: bool
    scope: GrantScope = "once"
    reason: str = ""


class Approver(Protocol):
    """Answers approval requests (a terminal prompt, a gateway callback, ...)."""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer: ...


class ApprovalFlagPolicy:
    """`requires_approval` tools follow the approvals mode; everything else is allowed."""

    def __init__(self, mode: ApprovalMode = "ask") -> None:
        self.mode = mode

    async def decide(self, call: ValidatedCall) -> Decision:
        if not call.tool.requires_approval:
            return ALLOW
        rule = f"requires_approval:{call.tool.name}"
        if self.mode == "allow":
            return ALLOW
        if self.mode == "deny":
            return Decision.deny(
                f"tool {call.tool.name!r} requires approval and approvals.mode is 'deny'", rule
            )
        return Decision.ask(f"tool {call.tool.name!r} requires approval", rule)


class ChainPolicy:
    """Several policies; the strictest verdict wins (deny > ask > allow)."""

    def __init__(self, *policies: Policy) -> None:
        self.policies = policies

    async def decide(self, call: ValidatedCall) -> Decision:
        verdict = ALLOW
        for policy in self.policies:
            d = await policy.decide(call)
            if d.kind == "deny":
                return d
            if d.kind == "ask" and verdict.kind == "allow":
                verdict = d
        return verdict


class AutoApprover:
    """Approves every request (`--yes`): the user consented up front."""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(True, "once", "approved up front (--yes)")


class DenyApprover:
    """Refuses every request: what non-interactive use gets."""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(False, "once", "nobody is there to approve (non-interactive)")


class CallbackApprover:
    """Asks a function (sync or async) — how a gateway hands requests to its users.

    The function returns a bool or an `ApprovalAnswer`; if it raises, the answer is no.
    """

    def __init__(
        self, fn: Callable[[ApprovalRequest], bool | ApprovalAnswer | Awaitable[bool | ApprovalAnswer]]
    ) -> None:
        self.fn = fn

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        try:
            out = self.fn(request)
            if inspect.isawaitable(out):
                out = await out
        except Exception as exc:  # boundary: an approval callback that fails must fail closed
            return ApprovalAnswer(False, "once", f"the approval callback failed: {exc}")
        if isinstance(out, ApprovalAnswer):
            return out
        return ApprovalAnswer(bool(out), "once")


class TerminalApprover:
    """Prompts on the terminal. When stdin is not a terminal there is nobody to ask: no."""

    def __init__(self, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stderr

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        if not self.stdin.isatty():
            return ApprovalAnswer(False, "once", "needs approval, and stdin is not a terminal to ask on")
        # A daemon worker: a prompt nobody answers must not keep the process alive at exit.
        answer: ApprovalAnswer = await run_sync(partial(self._prompt, request))
        return answer

    def _prompt(self, request: ApprovalRequest) -> ApprovalAnswer:
        args = ", ".join(f"{k}={v!r}" for k, v in request.call.arguments.items())
        self.stdout.write(f"\n{request.reason}\n  {request.call.tool.name}({args[:500]})\n")
        self.stdout.write("Allow? [y]es once / [s]ession / [N]o: ")
        self.stdout.flush()
        answer = self.stdin.readline().strip().lower()
        if answer in ("y", "yes"):
            return ApprovalAnswer(True, "once")
        if answer in ("s", "session"):
            return ApprovalAnswer(True, "session")
        return ApprovalAnswer(False, "once", "refused at the terminal")


class CallApprovals(Approvals):
    """The executor's answer to a running tool's approval questions, under the call's approvals.

    Same rules as the policy step before a call: `approvals.mode` allow / deny, grants remembered
    for the session (bound to the tool and the exact rule), and with nobody to ask, no.
    """

    def __init__(
        self,
        *,
        mode: ApprovalMode,
        approver: Approver | None,
        grants: Grants,
        tools: Callable[[str], Tool | None],
    ) -> None:
        self.mode = mode
        self.approver = approver
        self.grants = grants
        self.tools = tools

    async def ask(self, context: ToolContext, *, reason: str, rule: str, details: Mapping[str, Any]) -> bool:
        name = context.tool_name
        tool = self.tools(name)
        if self.mode == "allow":
            return True
        if self.mode == "deny" or tool is None:
            return False
        if self.grants.covers(name, rule):
            return True
        if self.approver is None:
            return False
        call = ValidatedCall(ToolCall(context.call_id, name, dict(details)), tool, dict(details))
        try:
            answer = await self.approver.approve(ApprovalRequest(call, reason, rule))
        except Exception:  # boundary: an approver that fails must fail closed
            return False
        if answer.approved and answer.scope != "once":
            self.grants.add(name, rule)
        return answer.approved
