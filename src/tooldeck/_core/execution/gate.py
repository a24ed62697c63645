"""The policy step of the executor, applied to each validated call right before it runs.

Order: deferred-and-not-promoted (`not_promoted`), outside the active skills (`denied`), then
the `Policy`. A deny is final (a blocked shell command is never grantable). An ask is answered
by a grant if one covers it — the session's `Grants`, or an `always` grant saved in the tooldeck
home — else by the `Approver` (one prompt at a time, within `approvals.timeout_s`); with no
approver the answer is no — unless the session's caller can stop and wait
(`approvals.unattended: interrupt` in an agent run): then the call is left pending
(`ApprovalPending`, a signed record of the exact call), and a later decision for that call
(`Grants.decide`) answers it once. A grant is bound to the tool, the rule that asked and the subject
(the normalised command), never to a whole category. Every decision is written to the audit
log; a decision that cannot be recorded does not let the call run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck._core.execution.approval_store import AlwaysGrants, AuditLog, StoreError
from tooldeck._core.execution.policy import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Decision,
    Grants,
    Policy,
)
from tooldeck._core.execution.safety_policy import needs_decision
from tooldeck._core.execution.types import ErrorEnvelope, ValidatedCall
from tooldeck.errors import ApprovalPending, CallRejected

Emit = Callable[..., None]
_AUDIT_ARGUMENTS_CHARS = 4000


@dataclass(frozen=True, slots=True)
class ApprovalSettings:
    """Where approvals are remembered and recorded, and how long an approver may take."""

    audit_log: Path
    grants_file: Path
    workspace: Path
    timeout_s: float = 300.0
    session_id: str | None = None
    # What a call that needs consent gets when nobody can answer now: refused, or left pending.
    unattended: str = "deny"


class CallGate:
    """Decides whether a validated call may run; returns the refusal, or None to go ahead."""

    def __init__(
        self,
        *,
        deferred: frozenset[str],
        promoted: Callable[[], Collection[str]],
        skills_allowed: frozenset[str] | None,
        policy: Policy,
        custom_policy: bool,
        approver: Approver | None,
        grants: Grants,
        emit: Emit,
        settings: ApprovalSettings,
    ) -> None:
        self.deferred = deferred
        self.promoted = promoted
        self.skills_allowed = skills_allowed
        self.policy = policy
        self.custom_policy = custom_policy
        self.approver = approver
        self.grants = grants
        self.emit = emit
        self.settings = settings
        self.audit = AuditLog(settings.audit_log)
        self.always = AlwaysGrants(settings.grants_file, settings.workspace)

    def quick(self, vc: ValidatedCall) -> ErrorEnvelope | bool:
        """The checks that need no await: a refusal, True to go ahead, False when `decide` must be asked."""
        name = vc.tool.name
        if self.deferred and name in self.deferred and name not in self.promoted():
            message = (
                f"tool {name!r} is deferred: its schema has not been loaded yet. Call tool_search "
                f"(e.g. query 'select:{name}') to load it, then call {name!r} again"
            )
            return ErrorEnvelope("not_promoted", message, name, True)
        allowed = self.skills_allowed
        if allowed is not None and name not in allowed and not vc.tool.essential:
            message = f"tool {name!r} is not allowed by the active skills (not in their allowed_tools)"
            return ErrorEnvelope("denied", message, name, False)
        return not self.custom_policy and not needs_decision(vc.tool)

    async def decide(
        self, vc: ValidatedCall, approval_lock: Callable[[], asyncio.Lock]
    ) -> ErrorEnvelope | None:
        """The Policy's verdict, and the approver's answer when it asks; None means go ahead."""
        name = vc.tool.name
        decision = await self.policy.decide(vc)
        given = self.grants.take(vc.id, name, vc.arguments)
        if given is not None and not given.approved:
            # A call refused by a decision given for it does not run, whatever the policy says now.
            ask = Decision.ask(
                decision.reason or "the call waited for approval", decision.rule, decision.subject
            )
            return self._answered(vc, ask, given, "")
        if decision.kind == "allow":
            return self._recorded(vc, decision, "allowed") if decision.audit else None
        self.emit("policy", vc.id, name, outcome=decision.kind, message=decision.reason)
        if decision.kind == "deny":
            outcome = "blocked" if decision.reason.startswith("blocked") else "denied"
            return self._recorded(vc, decision, outcome) or _denied(
                name, f"refused by policy: {decision.reason}"
            )
        return await self.settle(vc, decision, approval_lock, deferrable=True, given=given)

    async def settle(
        self,
        vc: ValidatedCall,
        decision: Decision,
        approval_lock: Callable[[], asyncio.Lock],
        *,
        deferrable: bool = False,
        given: ApprovalAnswer | None = None,
    ) -> ErrorEnvelope | None:
        """An `ask` decision answered: by a decision given for this exact call, a grant, the
        approver, or no; logged. None means yes. Also what a running tool's own questions go
        through (`CallApprovals`). Raises `ApprovalPending` when the call must wait (`deferrable`
        asks only: a call not yet running)."""
        name = vc.tool.name
        given = given or self.grants.take(vc.id, name, vc.arguments)
        if given is not None:
            return self._answered(vc, decision, given, "")
        deferrable = deferrable and self.grants.interruptible and self.settings.unattended == "interrupt"
        if self.approver is None:
            granted, trouble = self._granted(name, decision)
            if granted is not None:
                return self._recorded(vc, decision, "granted", scope=granted)
            if deferrable:
                raise self._pending(vc, decision, "nobody can approve it here")
            message = (
                f"{decision.reason}, and nobody can approve it here (non-interactive); the call was not run "
                "(approve up front with --yes, or set approvals.mode: allow)"
            )
            refusal = _denied(name, message)
            return self._recorded(vc, decision, "refused", why=_join("no approver", trouble)) or refusal
        # One question at a time; a grant given while this call waited its turn answers it.
        async with approval_lock():
            granted, trouble = self._granted(name, decision)
            if granted is not None:
                return self._recorded(vc, decision, "granted", scope=granted)
            answer = await self._ask(vc, decision, deferrable)
        if answer.later and deferrable:
            raise self._pending(vc, decision, answer.reason)
        return self._answered(vc, decision, answer, trouble)

    def _answered(
        self, vc: ValidatedCall, decision: Decision, answer: ApprovalAnswer, trouble: str
    ) -> ErrorEnvelope | None:
        """An approver's (or a stored decision's) answer applied: remembered, emitted, logged."""
        name = vc.tool.name
        note = self._remember(name, decision, answer) if answer.approved else None
        self.emit(
            "policy", vc.id, name, outcome="approved" if answer.approved else "refused", message=answer.reason
        )
        if not answer.approved:
            why = f": {answer.reason}" if answer.reason else ""
            refusal = _denied(name, f"{decision.reason}; the user did not approve it{why}")
            return (
                self._recorded(vc, decision, "refused", why=_join(answer.reason, trouble), by=answer.by)
                or refusal
            )
        why = _join(answer.reason, note, trouble)
        return self._recorded(vc, decision, "approved", scope=answer.scope, why=why, by=answer.by)

    def _pending(self, vc: ValidatedCall, decision: Decision, why: str) -> ApprovalPending:
        """The call left waiting: a record of exactly this call, signed with the grants key (a
        record a tool wrote is never honoured), and the audit log says so."""
        record: dict[str, Any] = {
            "call_id": vc.id,
            "tool": vc.tool.name,
            "arguments": vc.arguments,
            "rule": decision.rule,
            "reason": decision.reason,
            "subject": decision.subject,
        }
        try:
            record["signature"] = self.always.sign_pending(self.settings.session_id, record)
        except StoreError as exc:
            message = f"{decision.reason}; it cannot wait for approval: {exc}"
            raise CallRejected(_denied(vc.tool.name, message)) from None
        refusal = self._recorded(vc, decision, "pending", why=why)
        if refusal is not None:
            raise CallRejected(refusal)
        self.emit("policy", vc.id, vc.tool.name, outcome="pending", message=why)
        return ApprovalPending(record)

    # -- grants and approvers --------------------------------------------------------------

    def _granted(self, name: str, decision: Decision) -> tuple[str | None, str]:
        """The scope of a grant covering this ask ("session" / "always") or None, and why saved
        grants were ignored (an unsafe grants file grants nothing)."""
        if self.grants.covers(name, decision.rule, decision.subject):
            return "session", ""
        try:
            if self.always.covers(name, decision.rule, decision.subject):
                return "always", ""
        except StoreError as exc:
            return None, f"saved grants ignored: {exc}"
        return None, ""

    async def _ask(self, vc: ValidatedCall, decision: Decision, deferrable: bool) -> ApprovalAnswer:
        assert self.approver is not None
        timeout = self.settings.timeout_s
        request = ApprovalRequest(vc, decision.reason, decision.rule, decision.subject, timeout, deferrable)
        try:
            return await asyncio.wait_for(self.approver.approve(request), timeout)
        except TimeoutError:
            return ApprovalAnswer(False, "once", f"no answer within {timeout:g} s")

    def _remember(self, name: str, decision: Decision, answer: ApprovalAnswer) -> str | None:
        """Keep a session or always grant; returns a note when an always grant could not be saved."""
        if answer.scope == "once":
            return None
        self.grants.add(name, decision.rule, decision.subject)
        if answer.scope != "always":
            return None
        try:
            self.always.add(name, decision.rule, decision.subject)
        except StoreError as exc:
            return f"kept for this session only: the grant could not be saved ({exc})"
        return None

    # -- the audit log ---------------------------------------------------------------------

    def _recorded(
        self,
        vc: ValidatedCall,
        decision: Decision,
        outcome: str,
        *,
        scope: str | None = None,
        why: str = "",
        by: str | None = None,
    ) -> ErrorEnvelope | None:
        """Write the decision to the audit log; a refusal when that fails (the call does not run)."""
        try:
            self.audit.record(
                session=self.settings.session_id,
                call_id=vc.id,
                tool=vc.tool.name,
                decision=decision.kind,
                outcome=outcome,
                scope=scope,
                rule=decision.rule,
                subject=decision.subject,
                reason=decision.reason,
                note=why or None,
                approver=by or (type(self.approver).__name__ if self.approver is not None else None),
                arguments=_arguments_for_log(vc.arguments),
            )
        except StoreError as exc:
            message = (
                f"the approval audit log cannot be written, so the call was not run: {exc} "
                "(set approvals.audit_log or home to a writable place)"
            )
            return _denied(vc.tool.name, message)
        return None


def _arguments_for_log(arguments: Any) -> Any:
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    if len(text) <= _AUDIT_ARGUMENTS_CHARS:
        return arguments
    return {"truncated": text[:_AUDIT_ARGUMENTS_CHARS]}


def _join(*notes: str | None) -> str:
    return "; ".join(n for n in notes if n)


def _denied(name: str, message: str) -> ErrorEnvelope:
    return ErrorEnvelope("denied", message, name, False)
