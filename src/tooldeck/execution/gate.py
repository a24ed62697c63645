"""The policy step of the executor, applied to each validated call right before it runs.

Order: deferred-and-not-promoted (`not_promoted`), outside the active skills (`denied`), then
the `Policy`; an `ask` goes to the `Approver` (one prompt at a time), and with no approver the
answer is no. A grant with scope `session` or `always` is remembered in the session's `Grants`,
bound to the tool and the rule that asked - never to a whole category.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection

from tooldeck.execution.policy import ApprovalRequest, Approver, Grants, Policy
from tooldeck.execution.types import ErrorEnvelope, ValidatedCall

Emit = Callable[..., None]


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
    ) -> None:
        self.deferred = deferred
        self.promoted = promoted
        self.skills_allowed = skills_allowed
        self.policy = policy
        self.custom_policy = custom_policy
        self.approver = approver
        self.grants = grants
        self.emit = emit

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
        return not self.custom_policy and not vc.tool.requires_approval

    async def decide(
        self, vc: ValidatedCall, approval_lock: Callable[[], asyncio.Lock]
    ) -> ErrorEnvelope | None:
        """The Policy's verdict, and the approver's answer when it asks; None means go ahead."""
        name = vc.tool.name
        decision = await self.policy.decide(vc)
        if decision.kind == "allow":
            return None
        self.emit("policy", vc.id, name, outcome=decision.kind, message=decision.reason)
        if decision.kind == "deny":
            return _denied(name, f"refused by policy: {decision.reason}")
        if self.grants.covers(name, decision.rule):
            return None
        if self.approver is None:
            return _denied(
                name,
                f"{decision.reason}, and nobody can approve it here (non-interactive); the call was not run "
                "(approve up front with --yes, or set approvals.mode: allow)",
            )
        async with approval_lock():
            answer = await self.approver.approve(ApprovalRequest(vc, decision.reason, decision.rule))
        outcome = "approved" if answer.approved else "refused"
        self.emit("policy", vc.id, name, outcome=outcome, message=answer.reason)
        if not answer.approved:
            why = f": {answer.reason}" if answer.reason else ""
            return _denied(name, f"{decision.reason}; the user did not approve it{why}")
        if answer.scope != "once":
            self.grants.add(name, decision.rule)
        return None


def _denied(name: str, message: str) -> ErrorEnvelope:
    return ErrorEnvelope("denied", message, name, False)
