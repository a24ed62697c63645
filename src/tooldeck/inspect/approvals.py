"""Approvals and forms asked in the inspector's page.

A call from the page that needs approval parks its question here (`PageApprover.approve`); so
does a form a running tool asks the user to fill in (`PageApprover.elicit`: a tool's own
`ctx.elicit`, or an MCP server's elicitation during the call). The page polls `GET
/api/approvals`, shows each question (Approve / Deny) and each form (Accept / Decline / Cancel,
MCP's three answers), and answers with `POST /api/approvals/<id>` or `POST /api/forms/<id>`.
The call waits meanwhile, within `approvals.timeout_s` (no answer in time: a no, a form
cancelled). An approval's decision goes to the audit log as every other does, by the call path.
A question nobody answers is never taken as a yes, an accepted form is checked against its
schema before the tool sees it (a refused answer names the field and the form stays), and an
id, once answered, answers nothing more.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tooldeck.core import (
    ApprovalAnswer,
    ApprovalRequest,
    Elicitation,
    ElicitationRequest,
    checked_form_answer,
)

# What the page may answer: approve for this call or for the rest of the inspector's session
# (the same command and rule only), or deny.
DECISIONS = ("approve", "deny")
PAGE_SCOPES = ("once", "session")
# A form's answers, as MCP has them.
FORM_ACTIONS = ("accept", "decline", "cancel")
# What waits when no timeout is given (the default of approvals.timeout_s).
DEFAULT_TIMEOUT_S = 300.0

T = TypeVar("T")


@dataclass
class _Parked:
    id: str
    request: ApprovalRequest
    loop: asyncio.AbstractEventLoop
    answer: asyncio.Future[ApprovalAnswer] = field(repr=False)


@dataclass
class _ParkedForm:
    id: str
    request: ElicitationRequest
    loop: asyncio.AbstractEventLoop
    answer: asyncio.Future[Elicitation] = field(repr=False)


class PageApprover:
    """An `Approver` whose questions and forms are answered in the inspector's page; a form
    unanswered within `timeout_s` is cancelled."""

    def __init__(self, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        # Both kinds in one dict: the page shows them in the order they were asked.
        self._parked: dict[str, _Parked | _ParkedForm] = {}
        self._lock = threading.Lock()

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        loop = asyncio.get_running_loop()
        parked = _Parked(secrets.token_urlsafe(16), request, loop, loop.create_future())
        return await self._wait(parked.id, parked, parked.answer)

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        loop = asyncio.get_running_loop()
        parked = _ParkedForm(secrets.token_urlsafe(16), request, loop, loop.create_future())
        try:
            return await asyncio.wait_for(self._wait(parked.id, parked, parked.answer), self.timeout_s)
        except TimeoutError:
            return Elicitation("cancel", reason=f"no answer within {self.timeout_s:g} s")

    async def _wait(self, key: str, parked: _Parked | _ParkedForm, answer: asyncio.Future[T]) -> T:
        with self._lock:
            self._parked[key] = parked
        try:
            return await answer
        finally:  # answered, timed out or cancelled: the page stops showing it
            with self._lock:
                self._parked.pop(key, None)

    def pending(self) -> list[dict[str, Any]]:
        """What waits for an answer, oldest first, as the page shows it: approvals
        (`"kind": "approval"`) and forms (`"kind": "form"`, with the message and the schema)."""
        with self._lock:
            parked = list(self._parked.values())
        return [_shown(p) for p in parked]

    def answer(self, approval_id: str, decision: str, scope: str = "once") -> bool:
        """Answer a parked question; False when there is none by that id (answered already,
        timed out). A decision or scope the page does not offer is a ValueError naming it."""
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
        if scope not in PAGE_SCOPES:
            raise ValueError(f"scope must be one of {', '.join(PAGE_SCOPES)}, got {scope!r}")
        if decision == "approve":
            answer = ApprovalAnswer(
                True, "session" if scope == "session" else "once", "approved in the inspector"
            )
        else:
            answer = ApprovalAnswer(False, "once", "denied in the inspector")
        with self._lock:  # taken off at once: a second answer finds nothing
            parked = self._parked.get(approval_id)
            if not isinstance(parked, _Parked):
                return False
            del self._parked[approval_id]
        parked.loop.call_soon_threadsafe(_settle, parked.answer, answer)
        return True

    def answer_form(self, form_id: str, action: str, content: Any = None) -> bool:
        """Answer a parked form: `accept` with `content` (the form's values; its defaults fill
        what is left out), `decline` or `cancel`. False when no form waits by that id. A bad
        action, or content that does not fit the form, is a ValueError naming the problem (the
        field, for content), and the form goes on waiting."""
        if action not in FORM_ACTIONS:
            raise ValueError(f"action must be one of {', '.join(FORM_ACTIONS)}, got {action!r}")
        if action == "accept" and not isinstance(content, dict):
            raise ValueError('to accept, "content" must be an object of the form\'s values')
        with self._lock:
            parked = self._parked.get(form_id)
        if not isinstance(parked, _ParkedForm):
            return False
        if action == "accept":
            answer = checked_form_answer(parked.request.schema, Elicitation("accept", content))
            if not answer.accepted:
                raise ValueError(answer.reason)
        else:
            answer = (
                Elicitation("decline", None, "declined in the inspector")
                if action == "decline"
                else Elicitation("cancel", None, "cancelled in the inspector")
            )
        with self._lock:
            if self._parked.pop(form_id, None) is None:  # answered meanwhile
                return False
        parked.loop.call_soon_threadsafe(_settle, parked.answer, answer)
        return True


def _shown(parked: _Parked | _ParkedForm) -> dict[str, Any]:
    if isinstance(parked, _Parked):
        return {"kind": "approval", "id": parked.id, **parked.request.to_json()}
    r = parked.request
    return {
        "kind": "form",
        "id": parked.id,
        "tool": r.tool,
        "call_id": r.call_id,
        "message": r.message,
        "schema": dict(r.schema),
    }


def _settle(future: asyncio.Future[T], answer: T) -> None:
    if not future.done():
        future.set_result(answer)
