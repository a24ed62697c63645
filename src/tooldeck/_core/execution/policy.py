"""The policy step: may this validated call run now?

The executor always refuses, before any policy, a deferred tool that was not promoted by
`tool_search` (`not_promoted`) and a tool outside the active skills' `allowed_tools`
(`denied`). Then a `Policy` decides allow / deny / ask; on ask, an `Approver` answers within
`approvals.timeout_s`. With nobody to ask (non-interactive use), the answer is no: approvals
fail closed.

The built-in policy is `SafetyPolicy` (`tooldeck._core.execution.safety_policy`): shell commands are
analysed (blocked, asked about, or run), destructive tools and tools with `requires_approval`
follow `approvals.mode`. A policy passed by the caller applies on top of it (the stricter answer
wins). Approvers here: `TerminalApprover` (once / session / always / deny), `CallbackApprover`
(a function, for gateways and programs), `AutoApprover` (`--yes`), `DenyApprover`.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import select
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, Protocol, TextIO

from tooldeck._core.channel import Elicitation, ElicitationRequest
from tooldeck._core.context import Approvals, ToolContext
from tooldeck._core.execution.forms import ask_form, with_defaults
from tooldeck._core.execution.runner import run_sync
from tooldeck._core.execution.types import ToolCall, ValidatedCall
from tooldeck._core.tool import Tool
from tooldeck._utils.text import for_terminal

DecisionKind = Literal["allow", "deny", "ask"]
ApprovalMode = Literal["ask", "deny", "allow"]
GrantScope = Literal["once", "session", "always"]
SCOPES: tuple[GrantScope, ...] = ("once", "session", "always")


@dataclass(frozen=True, slots=True)
class Decision:
    """A policy's verdict; `reason` is shown to the model (deny) or the approver (ask)."""

    kind: DecisionKind
    reason: str = ""
    # What rule matched, so a grant can be bound to it (never to a whole category).
    rule: str | None = None
    # What a grant is bound to besides the tool and the rule: the normalised shell command, the
    # exact code. None binds a grant to the tool and rule alone.
    subject: str | None = None
    # Whether the decision goes to the audit log even when it allows the call.
    audit: bool = False

    @classmethod
    def allow(cls) -> Decision:
        return ALLOW

    @classmethod
    def deny(cls, reason: str, rule: str | None = None, subject: str | None = None) -> Decision:
        return cls("deny", reason, rule, subject, audit=True)

    @classmethod
    def ask(cls, reason: str, rule: str | None = None, subject: str | None = None) -> Decision:
        return cls("ask", reason, rule, subject, audit=True)


ALLOW = Decision("allow")

GrantKey = tuple[str, str | None, str | None]


class Grants:
    """Approvals granted for longer than one call, each bound to a tool, the rule that asked and
    its subject (the exact normalised command). One object per session, shared by every executor
    of that session (thread-safe).

    It also holds the decisions given for calls a run stopped at (`decide`): each answers the
    one call it names — its id, tool and exact arguments — once. `interruptible` says whether
    the session's caller can stop and wait for a decision (an agent run), which lets
    `approvals.unattended: interrupt` leave a call pending instead of refusing it."""

    def __init__(self) -> None:
        self._granted: set[GrantKey] = set()
        self._lock = threading.Lock()
        self._decided: dict[str, tuple[str, str, ApprovalAnswer]] = {}
        self.interruptible = False

    def decide(self, call_id: str, tool: str, arguments: Mapping[str, Any], answer: ApprovalAnswer) -> None:
        """The answer for exactly this call (id, tool, arguments), used by the next ask about it."""
        with self._lock:
            self._decided[call_id] = (tool, _canonical(arguments), answer)

    def take(self, call_id: str, tool: str, arguments: Mapping[str, Any]) -> ApprovalAnswer | None:
        """The decision for this exact call, removed (used once); None when there is none or it
        was given for other arguments or another tool."""
        with self._lock:
            found = self._decided.get(call_id)
            if found is None or found[:2] != (tool, _canonical(arguments)):
                return None
            del self._decided[call_id]
            return found[2]

    def covers(self, tool: str, rule: str | None, subject: str | None = None) -> bool:
        return (tool, rule, subject) in self._granted

    def add(self, tool: str, rule: str | None, subject: str | None = None) -> None:
        with self._lock:
            self._granted.add((tool, rule, subject))


def _canonical(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


class Policy(Protocol):
    """Decides, for one validated call, whether it may run."""

    async def decide(self, call: ValidatedCall) -> Decision: ...


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What an approver is asked: this call, why, and what a grant would be bound to."""

    call: ValidatedCall
    reason: str
    rule: str | None = None
    subject: str | None = None
    # Seconds the approver has; no answer by then counts as no.
    timeout_s: float | None = None
    # Whether "decide later" is an answer here: the run can stop and wait with the session
    # (`approvals.unattended: interrupt` in an agent run).
    deferrable: bool = False

    def to_json(self) -> dict[str, Any]:
        """The request as plain JSON data, for a gateway to forward to its user."""
        return {
            "call_id": self.call.id,
            "tool": self.call.tool.name,
            "arguments": dict(self.call.arguments),
            "reason": self.reason,
            "rule": self.rule,
            "subject": self.subject,
            "timeout_s": self.timeout_s,
            "scopes": list(SCOPES),
            "deferrable": self.deferrable,
        }


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """An approver's answer: yes or no, for how long a yes lasts (`once`, `session`, `always`),
    and why. `later`: not now — nobody can answer here, or the person chose to decide later;
    where the run can wait (`ApprovalRequest.deferrable`) it stops with the call pending,
    elsewhere it is a no. `by`: who answered, for the audit log (default: the approver's class)."""

    approved: bool
    scope: GrantScope = "once"
    reason: str = ""
    later: bool = False
    by: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ApprovalAnswer:
        """`{"approved": true, "scope": "session"}` from a gateway (`{"later": true}`: decide
        later); anything malformed is a no."""
        if data.get("later") is True:
            return cls(False, "once", str(data.get("reason") or "to be decided later"), later=True)
        approved, scope = data.get("approved"), data.get("scope", "once")
        if not isinstance(approved, bool) or scope not in SCOPES:
            return cls(False, "once", f"malformed approval answer {dict(data)!r}")
        return cls(approved, scope, str(data.get("reason") or ""))


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
            if (d.kind == "ask" and verdict.kind != "ask") or (d.kind == verdict.kind == "allow" and d.audit):
                verdict = d
        return verdict


class AutoApprover:
    """Approves every request (`--yes`): the user consented up front. A running tool's form
    gets its defaults when they fill it, and is declined when they do not."""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(True, "once", "approved up front (--yes)")

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        return with_defaults(request)


class DenyApprover:
    """Refuses every request: what non-interactive use gets."""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(False, "once", "nobody is there to approve (non-interactive)")

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        return Elicitation("decline", reason="nobody is there to answer (non-interactive)")


ApprovalReply = bool | ApprovalAnswer | Mapping[str, Any]
ApprovalCallback = Callable[[ApprovalRequest], ApprovalReply | Awaitable[ApprovalReply]]


class CallbackApprover:
    """Asks a function — how a gateway or a program hands requests to its users.

    The function (sync or async) gets the `ApprovalRequest` (`request.to_json()` is its wire
    form) and returns a bool, an `ApprovalAnswer`, or a mapping `{"approved", "scope"}`. A sync
    function runs on a worker thread, so it may block while a person decides. If it raises,
    answers something malformed, or takes longer than the approvals timeout, the answer is no.
    """

    def __init__(self, fn: ApprovalCallback) -> None:
        self.fn = fn

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        try:
            if inspect.iscoroutinefunction(self.fn):
                out = await self.fn(request)
            else:  # run_sync awaits what the function returns when that is awaitable
                out = await run_sync(partial(self.fn, request))
        except Exception as exc:  # boundary: an approval callback that fails must fail closed
            return ApprovalAnswer(False, "once", f"the approval callback failed: {exc}")
        if isinstance(out, ApprovalAnswer):
            return out
        if isinstance(out, Mapping):
            return ApprovalAnswer.from_json(out)
        if isinstance(out, bool):
            return ApprovalAnswer(out, "once")
        return ApprovalAnswer(
            False, "once", f"the approval callback answered {type(out).__name__}, not a bool"
        )


def parse_answer(text: str | None, *, deferrable: bool = False) -> ApprovalAnswer:
    """A typed answer to the approval prompt: once (y), session, always, later (where the run
    can wait: `deferrable`), anything else no — Enter included."""
    choice = (text or "").strip().lower()
    if deferrable and choice in ("l", "later"):
        return ApprovalAnswer(False, "once", "to be decided later (at the prompt)", later=True)
    if choice in ("o", "once", "y", "yes"):
        return ApprovalAnswer(True, "once")
    if choice in ("s", "session"):
        return ApprovalAnswer(True, "session")
    if choice in ("a", "always"):
        return ApprovalAnswer(True, "always")
    return ApprovalAnswer(False, "once", "refused at the prompt" if text else "no answer (end of input)")


PROMPT = "Allow? [o]nce / [s]ession / [a]lways / [D]eny: "
"""The question the terminal approver asks."""

PROMPT_LATER = "Allow? [o]nce / [s]ession / [a]lways / [l]ater / [D]eny: "
"""The question when the run can stop and wait for the answer ("later": decide later)."""


def prompt_for(request: ApprovalRequest) -> str:
    """The approval question for `request`: "later" is offered only where the run can wait."""
    return PROMPT_LATER if request.deferrable else PROMPT


def describe_request(request: ApprovalRequest, *, limit: int = 500) -> str:
    """The request as lines for a person: why (every flagged part in full, with its rule), the
    command (if any) and the call with its arguments, cut at `limit` characters each with how
    much was cut; control characters escaped."""
    args = ", ".join(f"{k}={v!r}" for k, v in request.call.arguments.items())
    lines = [f"approval needed: {request.reason}"]
    if request.subject is not None:
        lines.append(f"  {request.call.tool.name}: {_cut(request.subject, limit)}")
    lines.append(f"  {request.call.tool.name}({_cut(args, limit)})")
    return "\n".join(for_terminal(line) for line in lines)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ... [{len(text) - limit} more characters not shown; the flagged parts are listed above]"


class TerminalApprover:
    """Prompts on the terminal: once / session / always / deny. When stdin is not a terminal
    there is nobody to ask: no. No answer within the request's timeout: no."""

    def __init__(self, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stderr
        # Concurrent batches (sub-agents, nested calls) ask one question at a time.
        self._lock = threading.Lock()

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        if not self.stdin.isatty():
            reason = "needs approval, and stdin is not a terminal to ask on"
            return ApprovalAnswer(False, "once", reason, later=True)
        # A daemon worker: a prompt nobody answers must not keep the process alive at exit.
        answer: ApprovalAnswer = await run_sync(partial(self._prompt, request))
        return answer

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        """A running tool's form, field by field on the terminal; no terminal: declined."""
        if not self.stdin.isatty():
            return Elicitation("decline", reason="stdin is not a terminal to ask on")
        answer: Elicitation = await run_sync(partial(self._form, request))
        return answer

    def _form(self, request: ElicitationRequest) -> Elicitation:
        def write(text: str) -> None:
            self.stdout.write(text)
            self.stdout.flush()

        with self._lock:
            return ask_form(request, lambda: _read_line(self.stdin, None), write)

    def _prompt(self, request: ApprovalRequest) -> ApprovalAnswer:
        with self._lock:
            self.stdout.write(f"\n{describe_request(request)}\n{prompt_for(request)}")
            self.stdout.flush()
            line = _read_line(self.stdin, request.timeout_s)
        if line is None:
            return ApprovalAnswer(False, "once", f"no answer within {request.timeout_s:g} s")
        return parse_answer(line, deferrable=request.deferrable)


def _read_line(stream: TextIO, timeout_s: float | None) -> str | None:
    """One line ("" at end of input), or None when nothing arrives within `timeout_s`."""
    fd: int | None = None
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation, AttributeError):
        fd = stream.fileno()
    if fd is not None and timeout_s is not None:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        if not ready:
            return None
    return stream.readline()


# Answers an ask decision for a call: None when approved, else the refusal.
Settle = Callable[..., Awaitable[Any]]


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
        settle: Settle | None = None,
        unattended: str = "deny",
    ) -> None:
        # Whether a deferrable question may leave the call waiting (see `can_wait`).
        self.unattended = unattended
        self.mode = mode
        self.approver = approver
        self.grants = grants
        self.tools = tools
        # The executor's way of answering an ask (saved grants, the approver, the audit log);
        # without it, session grants and the approver alone.
        self.settle = settle

    def can_wait(self) -> bool:
        return self.mode == "ask" and self.unattended == "interrupt" and self.grants.interruptible

    async def ask(
        self,
        context: ToolContext,
        *,
        reason: str,
        rule: str,
        details: Mapping[str, Any],
        deferrable: bool = False,
    ) -> bool:
        name = context.tool_name
        tool = self.tools(name)
        if self.mode == "allow":
            return True
        if self.mode == "deny" or tool is None:
            return False
        call = ValidatedCall(ToolCall(context.call_id, name, dict(details)), tool, dict(details))
        if self.settle is not None:
            subject = details.get("path") if isinstance(details.get("path"), str) else None
            return await self.settle(call, Decision.ask(reason, rule, subject), deferrable=deferrable) is None
        if self.grants.covers(name, rule):
            return True
        if self.approver is None:
            return False
        try:
            answer = await self.approver.approve(ApprovalRequest(call, reason, rule))
        except Exception:  # boundary: an approver that fails must fail closed
            return False
        if answer.approved and answer.scope != "once":
            self.grants.add(name, rule)
        return answer.approved
