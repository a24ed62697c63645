"""Decisions on held effects: a terminal command whose effects waited for approval.

Such a pending call is not run again when approved: its effects, kept as the copy-on-write view
saw them (`tooldeck.tools.effects_held`), land in the workspace, and the model reads the output
the command gave then. A change to any of its paths since refuses the approval, naming them,
before anything is claimed or changed; a denial forgets the kept effects. Each decision is written
to the approvals audit log, as the call path writes the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.agent.interrupts import ApprovalDecision, HeldBatch
from tooldeck.core import (
    AuditLog,
    Checkpointed,
    ErrorEnvelope,
    Recording,
    ToolResult,
    Workspace,
    checkpoint_store,
)
from tooldeck.errors import DecisionError, StoreError, ToolError

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig


class HeldEffects:
    """The decided pending calls of `held` that are held effects (their arguments name a bundle)."""

    def __init__(
        self, held: HeldBatch, decisions: Mapping[str, ApprovalDecision], *, home: Path, workspace: Workspace
    ) -> None:
        self.home = home
        self.workspace = workspace
        self.records = {
            str(p["call_id"]): p
            for p in held.pending
            if str(p.get("call_id")) in decisions
            and isinstance(p.get("arguments"), Mapping)
            and "held" in p["arguments"]
        }
        self.decisions = {i: decisions[i] for i in self.records}
        self.ids = set(self.records)

    def check(self) -> None:
        """Refuse (nothing changed) an edit, or an approval whose paths changed meanwhile."""
        from tooldeck.tools.effects_held import check_held

        for call_id, record in self.records.items():
            decision = self.decisions[call_id]
            if decision.kind == "edit":
                raise DecisionError(f"call {call_id!r} waits with held effects: approve or deny it, not edit")
            if decision.kind == "approve":
                try:
                    check_held(self.home, self.workspace, record["arguments"])
                except ToolError as exc:
                    raise DecisionError(f"call {call_id!r}: {exc}") from None

    def settle(self, config: CoreConfig, session_id: str) -> list[ToolResult]:
        """Land the approved effects, forget the denied ones; the calls' results, audited."""
        from tooldeck.tools.effects_held import discard_held

        out = []
        for call_id, record in self.records.items():
            decision, name, details = self.decisions[call_id], str(record["tool"]), record["arguments"]
            if decision.kind == "deny":
                discard_held(self.home, details)
                why = f": {decision.reason}" if decision.reason else ""
                error = ErrorEnvelope("denied", f"{record['reason']}; the user did not approve it{why}", name)
                result = ToolResult(call_id=call_id, name=name, content=error.to_json(), error=error)
            else:
                result = self._land(config, session_id, record)
            self._audit(config, session_id, record, decision, result)
            out.append(result)
        return out

    def _land(self, config: CoreConfig, session_id: str, record: Mapping[str, Any]) -> ToolResult:
        """Land one approved call's effects, checkpointed as the call's changes (so `tooldeck
        undo` reverses them) when the workspace's changes are checkpointed."""
        from tooldeck.tools.effects_held import discard_held, land_held

        call_id, name = str(record["call_id"]), str(record["tool"])
        taken = self._checkpointed(config, session_id, call_id, name)
        try:
            with taken or contextlib.nullcontext():
                output, summary = land_held(self.home, self.workspace, record["arguments"])
        except ToolError as exc:
            discard_held(self.home, record["arguments"])  # decided: the call is answered by the error
            error = ErrorEnvelope("denied", str(exc), name)
            return ToolResult(call_id=call_id, name=name, content=error.to_json(), error=error)
        made = taken.lazy.made if taken is not None else None
        undo = f"; undo: tooldeck undo {made.id}" if made is not None and made.id is not None else ""
        content = f"{output}\n[workspace changed: {summary}; approved later{undo}]".lstrip("\n")
        return ToolResult(call_id=call_id, name=name, content=content)

    def _checkpointed(
        self, config: CoreConfig, session_id: str, call_id: str, name: str
    ) -> Checkpointed | None:
        if not config.checkpoints.enabled:
            return None
        store, workspace = checkpoint_store(config), self.workspace

        def make(_: object) -> Recording:
            return Recording(store, workspace, tool=name, call_id=call_id, session_id=session_id)

        return Checkpointed(make, None)

    def _audit(
        self,
        config: CoreConfig,
        session_id: str,
        record: Mapping[str, Any],
        decision: ApprovalDecision,
        result: ToolResult,
    ) -> None:
        path = config.resolve_path(config.approvals.audit_log) if config.approvals.audit_log else None
        # Decided already: a log that cannot be written does not undo the landing.
        with contextlib.suppress(StoreError):
            AuditLog(path or self.home / "approvals.jsonl").record(
                session=session_id,
                call_id=record["call_id"],
                tool=record["tool"],
                decision="ask",
                outcome="approved" if result.error is None else "refused",
                scope="once",
                rule=record.get("rule"),
                subject=record.get("subject"),
                reason=record.get("reason"),
                note=decision.reason or None,
                approver=f"{decision.by} (decided later)",
                arguments=dict(record["arguments"]),
            )
