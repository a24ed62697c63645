"""Approvals as interrupts: a model reply whose calls wait for consent, stored and resumed.

With `approvals.unattended: interrupt`, a call that needs consent when nobody can answer is
left pending by the call path (its result carries an `approval` interrupt with a signed record
of the exact call). The other calls of the same reply run as usual. The loop then holds the
whole batch (`HeldBatch`): the calls in the model's order, the results of those that ran, and
those that wait. It is stored with the session, so any later process can decide:

    result = await agent.run(convo, "clean up the build folder")
    result.pending                     # [{"call_id", "tool", "arguments", "rule", "reason", ...}]
    result = await agent.resume(convo, {"call_1": ApprovalDecision.approve()})

A decision answers one pending call, once: approve (the stored call runs, through the whole
call path), deny (it does not run; the model reads the reason as its result) or edit (the call
with other arguments, validated and judged again as a new call; the edit approves exactly those
arguments). When every call of the batch has a result, they go back to the model in the order
it made them, and the turn goes on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldeck.agent.messages import Message, tool_message
from tooldeck.core import ApprovalAnswer, ErrorEnvelope, ToolCall, ToolResult
from tooldeck.errors import DecisionError

DecisionKind = Literal["approve", "deny", "edit"]
Scope = Literal["once", "session", "always"]
# The fields of a pending call that are shown (the stored record also carries its signature).
PENDING_FIELDS = ("call_id", "tool", "arguments", "rule", "reason", "subject")


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """A person's decision on one pending call: `approve` (for `scope`: once, the rest of the
    session, or always), `deny` (with a `reason` the model reads), or `edit` (run it with
    these `arguments` instead). `by` says where it was given (cli, api, inspector, gateway)."""

    kind: DecisionKind
    scope: Scope = "once"
    reason: str = ""
    arguments: Mapping[str, Any] | None = None
    by: str = "api"

    @classmethod
    def approve(cls, scope: Scope = "once", *, by: str = "api") -> ApprovalDecision:
        """Run the stored call; `session` / `always` also grant the same command later."""
        return cls("approve", scope, by=by)

    @classmethod
    def deny(cls, reason: str = "", *, by: str = "api") -> ApprovalDecision:
        """Do not run it; the model reads `reason` as the call's result."""
        return cls("deny", reason=reason, by=by)

    @classmethod
    def edit(cls, arguments: Mapping[str, Any], *, by: str = "api") -> ApprovalDecision:
        """Run it with these arguments instead (validated and judged again; approved as edited)."""
        return cls("edit", arguments=dict(arguments), by=by)

    def answer(self) -> ApprovalAnswer:
        """What the call path's approvals step reads for the decided call."""
        who = f"{self.by} (decided later)"
        if self.kind == "deny":
            return ApprovalAnswer(False, "once", self.reason or "denied", by=who)
        reason = "approved with edited arguments" if self.kind == "edit" else "approved"
        return ApprovalAnswer(True, self.scope if self.kind == "approve" else "once", reason, by=who)


@dataclass
class HeldBatch:
    """One model reply's tool calls, stopped at approval: the calls in the model's order, the
    results (tool messages) of those that have one, and the signed records of those that wait."""

    calls: list[tuple[str, str]]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, calls: Sequence[ToolCall], results: Sequence[ToolResult], *, images: bool) -> HeldBatch:
        held = cls([(c.id, c.name) for c in calls])
        held.add(results, images=images)
        return held

    @classmethod
    def load(cls, interrupt: Mapping[str, Any] | None) -> HeldBatch | None:
        """The held batch a stored interrupt carries; None for another kind (a clarify question)."""
        if not interrupt or interrupt.get("kind") != "approval":
            return None
        try:
            calls = [(str(c["id"]), str(c["name"])) for c in interrupt["calls"]]
            results = {str(k): dict(v) for k, v in interrupt["results"].items()}
            pending = [dict(p) for p in interrupt["pending"]]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DecisionError(f"the stored approval interrupt is malformed ({exc!r})") from None
        return cls(calls, results, pending)

    def add(self, results: Sequence[ToolResult], *, images: bool) -> None:
        """Results of the batch's calls: a call left waiting joins `pending`, the others are kept."""
        for result in results:
            if is_awaiting(result):
                assert result.interrupt is not None
                self.pending.extend(dict(p) for p in result.interrupt["pending"])
            else:
                self.results[result.call_id] = tool_message(result, images=images).to_dict()

    @property
    def waiting(self) -> bool:
        return bool(self.pending)

    def to_json(self) -> dict[str, Any]:
        """What the session stores (the interrupt column)."""
        return {
            "kind": "approval",
            "pending": self.pending,
            "calls": [{"id": i, "name": n} for i, n in self.calls],
            "results": self.results,
        }

    def public(self) -> dict[str, Any]:
        """What a caller is shown: the kind and the calls that wait."""
        shown = [{k: p.get(k) for k in PENDING_FIELDS} for p in self.pending]
        return {"kind": "approval", "pending": shown}

    def messages(self) -> list[Message]:
        """The tool messages in the model's order. A decided call without a result (the process
        was stopped while it ran) is answered as such: it may or may not have run."""
        out = []
        for call_id, name in self.calls:
            found = self.results.get(call_id)
            if found is None:
                message = "the run stopped before this call finished; it may not have run"
                lost = ErrorEnvelope("cancelled", message, name)
                out.append(Message("tool", lost.to_json(), tool_call_id=call_id, name=name, is_error=True))
            else:
                out.append(Message.from_dict(found))
        return out

    def answered_ids(self) -> set[str]:
        """Ids of this batch's calls: none of them may be answered as lost by a crash."""
        return {call_id for call_id, _ in self.calls}

    def take(self, decisions: Mapping[str, ApprovalDecision]) -> list[tuple[ToolCall, dict[str, Any]]]:
        """The calls to run for `decisions`, each with the arguments its decision is bound to;
        the decided records leave `pending`. Refuses (nothing taken) a decision for a call that
        is not pending and an edit whose arguments are not an object."""
        if not decisions:
            raise DecisionError(f"no decision given; waiting: {self.describe()}")
        by_id = {str(p.get("call_id")): p for p in self.pending}
        for call_id, decision in decisions.items():
            if call_id not in by_id:
                raise DecisionError(
                    f"call {call_id!r} is not waiting for a decision (decided already, or never pending); "
                    f"waiting: {self.describe() or 'nothing'}"
                )
            if decision.kind == "edit" and not isinstance(decision.arguments, Mapping):
                raise DecisionError(f"the edit of call {call_id!r} needs its arguments as a JSON object")
        out: list[tuple[ToolCall, dict[str, Any]]] = []
        for call_id, decision in decisions.items():
            record = by_id[call_id]
            args = dict(decision.arguments or {}) if decision.kind == "edit" else dict(record["arguments"])
            out.append((ToolCall(call_id, str(record["tool"]), json.dumps(args)), args))
        self.pending = [p for p in self.pending if str(p.get("call_id")) not in decisions]
        return out

    def describe(self) -> str:
        return ", ".join(f"{p.get('call_id')} ({p.get('tool')}: {p.get('reason')})" for p in self.pending)


def is_awaiting(result: ToolResult) -> bool:
    """Whether a call's result is no result yet: it waits for an approval."""
    return result.interrupt is not None and result.interrupt.get("kind") == "approval"


__all__ = ["ApprovalDecision", "HeldBatch", "is_awaiting"]
