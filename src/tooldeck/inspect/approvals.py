"""Approvals asked in the inspector's page.

A call from the page that needs approval parks its question here (`PageApprover.approve`); the
page polls `GET /api/approvals`, shows each question with Approve and Deny buttons, and answers
with `POST /api/approvals/<id>`. The call waits meanwhile, within `approvals.timeout_s` like any
approver (no answer in time is a no), and the decision goes to the audit log as every other
does, by the call path. A question nobody answers is never taken as a yes.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from tooldeck.core import ApprovalAnswer, ApprovalRequest

# What the page may answer: approve for this call or for the rest of the inspector's session
# (the same command and rule only), or deny.
DECISIONS = ("approve", "deny")
PAGE_SCOPES = ("once", "session")


@dataclass
class _Parked:
    id: str
    request: ApprovalRequest
    loop: asyncio.AbstractEventLoop
    answer: asyncio.Future[ApprovalAnswer] = field(repr=False)


class PageApprover:
    """An `Approver` whose questions are answered in the inspector's page."""

    def __init__(self) -> None:
        self._parked: dict[str, _Parked] = {}
        self._lock = threading.Lock()

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        loop = asyncio.get_running_loop()
        parked = _Parked(secrets.token_urlsafe(9), request, loop, loop.create_future())
        with self._lock:
            self._parked[parked.id] = parked
        try:
            return await parked.answer
        finally:  # answered, timed out or cancelled: the page stops showing it
            with self._lock:
                self._parked.pop(parked.id, None)

    def pending(self) -> list[dict[str, Any]]:
        """The questions waiting for an answer, oldest first, as the page shows them."""
        with self._lock:
            parked = list(self._parked.values())
        return [{"id": p.id, **p.request.to_json()} for p in parked]

    def answer(self, approval_id: str, decision: str, scope: str = "once") -> bool:
        """Answer a parked question; False when there is none by that id (answered already,
        timed out). A decision or scope the page does not offer is a ValueError naming it."""
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
        if scope not in PAGE_SCOPES:
            raise ValueError(f"scope must be one of {', '.join(PAGE_SCOPES)}, got {scope!r}")
        with self._lock:
            parked = self._parked.get(approval_id)
        if parked is None:
            return False
        if decision == "approve":
            answer = ApprovalAnswer(
                True, "session" if scope == "session" else "once", "approved in the inspector"
            )
        else:
            answer = ApprovalAnswer(False, "once", "denied in the inspector")
        parked.loop.call_soon_threadsafe(_settle, parked.answer, answer)
        return True


def _settle(future: asyncio.Future[ApprovalAnswer], answer: ApprovalAnswer) -> None:
    if not future.done():
        future.set_result(answer)
