"""Calls of stored sessions that wait for approval, decided from the inspector's page.

    GET  /api/pending                 every stored session's calls waiting for approval
    POST /api/sessions/<id>/decide    {"call_id", "decision": "approve" | "deny" | "edit",
                                       "scope", "reason", "arguments"} -> the resumed turn

A turn that stopped at approval (`approvals.unattended: interrupt`, e.g. `tooldeck run --json`
in a script) waits in the session database. The page lists those calls; a decision resumes the
run here, with the config's model, exactly as `tooldeck run --resume ID --approve/--deny/--edit`
would: the decision binds to that stored call, is used once, and is written to the audit log as
given in the inspector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tooldeck.errors import DecisionError

if TYPE_CHECKING:
    from tooldeck import Deck
    from tooldeck.agent.interrupts import ApprovalDecision


def pending_calls(deck: Deck) -> list[dict[str, Any]]:
    """Each call waiting for approval in the stored sessions, newest session first."""
    from tooldeck.agent.services import sessions_db
    from tooldeck.agent.sessions import SessionStore
    from tooldeck.inspect.records import shown_interrupt

    path = sessions_db(deck.config)
    if not path.exists():  # looking creates nothing
        return []
    out: list[dict[str, Any]] = []
    with SessionStore(path) as store:
        for summary in store.list_sessions(include_children=True, pending=True):
            shown = shown_interrupt(store.load(summary.id).interrupt) or {}
            for item in shown.get("pending", ()):
                out.append({"session_id": summary.id, "title": summary.title, **item})
    return out


def decision_of(body: Any) -> tuple[str, ApprovalDecision]:
    """The call id and the decision a request body gives; a `DecisionError` naming the field
    when the body does not make one."""
    from tooldeck.agent.interrupts import ApprovalDecision

    if not isinstance(body, Mapping):
        raise DecisionError('the body must be a JSON object {"call_id", "decision", ...}')
    call_id, kind = body.get("call_id"), body.get("decision")
    if not isinstance(call_id, str) or not call_id:
        raise DecisionError('"call_id" must be the id of a pending call')
    if kind == "approve":
        scope = body.get("scope", "once")
        if scope not in ("once", "session", "always"):
            raise DecisionError('"scope" must be once, session or always')
        return call_id, ApprovalDecision.approve(scope, by="inspector")
    if kind == "deny":
        return call_id, ApprovalDecision.deny(str(body.get("reason") or ""), by="inspector")
    if kind == "edit":
        arguments = body.get("arguments")
        if not isinstance(arguments, Mapping):
            raise DecisionError('"arguments" of an edit must be a JSON object')
        return call_id, ApprovalDecision.edit(arguments, by="inspector")
    raise DecisionError('"decision" must be approve, deny or edit')


async def resume_with(
    deck: Deck, session_id: str, call_id: str, decision: ApprovalDecision
) -> dict[str, Any]:
    """Resume the stored session with one decision; what the turn ended with."""
    agent = deck.agent()
    try:
        convo = agent.resume(session_id)
        result = await agent.resume(convo, {call_id: decision})
    finally:
        await agent.aclose()
    return {
        "session_id": result.session_id,
        "status": result.status,
        "text": result.text,
        "interrupt": dict(result.interrupt) if result.interrupt is not None else None,
    }
