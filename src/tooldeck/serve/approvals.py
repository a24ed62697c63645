"""Asking an MCP client to approve a call, through elicitation.

Two protocol eras, two ways of asking:

- handshake era (2025 protocol versions): the server sends `elicitation/create` to the client
  while the call waits (`ElicitationApprover`). It works mid-call too, so an ACP agent's
  permission request can be asked the same way.
- 2026-07-28 era: a server may not send requests; a call that needs approval answers with an
  `InputRequiredResult` holding the elicitation, and the client retries the call with the
  answer (`RoundTripApprover`, round_trips.py). The retry's `requestState` is sealed by the
  SDK and bound to the tool and its exact arguments, so an answer is only ever applied to the
  call it was given for.

A client that did not declare elicitation cannot be asked: the call is refused with the reason
(`CannotAsk`; approvals fail closed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooldeck.core import ApprovalAnswer, ApprovalRequest
from tooldeck.serve.round_trips import RoundTrip
from tooldeck.serve.wire import arguments_text

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.session import ServerSession

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "Run this call"},
        "remember": {
            "type": "boolean",
            "title": "Remember",
            "description": "Approve the same thing again without asking, for this session",
            "default": False,
        },
    },
    "required": ["approve"],
}


def supports_elicitation(capabilities: mcp_types.ClientCapabilities | None) -> bool:
    """Whether the client can answer a form elicitation (a bare `elicitation: {}` means form)."""
    found = capabilities.elicitation if capabilities is not None else None
    return found is not None and (found.form is not None or found.url is None)


def question(request: ApprovalRequest) -> str:
    call = request.call
    return f"{request.reason}.\n{call.tool.name} {arguments_text(call.arguments)}\nAllow it?"


def answer_of(result: mcp_types.ElicitResult) -> ApprovalAnswer:
    """An elicitation's answer as an approval: only an accepted form with approve=true says yes."""
    content = result.content or {}
    if result.action != "accept":
        return ApprovalAnswer(False, "once", f"the client answered {result.action!r}")
    if content.get("approve") is not True:
        return ApprovalAnswer(False, "once", "the user did not approve it")
    return ApprovalAnswer(True, "session" if content.get("remember") is True else "once")


class CannotAsk:
    """The approver of a client without elicitation: the answer is no, saying why (fail closed)."""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(
            False,
            "once",
            "this MCP client cannot be asked (it did not declare the elicitation capability), and "
            "approvals fail closed; set approvals.mode: allow in the served config to run it without asking",
        )


class ElicitationApprover:
    """Asks through `elicitation/create` on the call's own request stream (handshake era)."""

    def __init__(self, session: ServerSession, request_id: str | int | None) -> None:
        self.session = session
        self.request_id = request_id

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        from mcp.shared.exceptions import MCPError, NoBackChannelError

        try:
            result = await self.session.elicit_form(
                question(request), APPROVAL_SCHEMA, related_request_id=self.request_id
            )
        except (MCPError, NoBackChannelError, OSError) as exc:
            return ApprovalAnswer(False, "once", f"the client could not be asked ({exc})")
        return answer_of(result)


class RoundTripApprover:
    """Answers from the call's earlier rounds, or adds the question to the next (2026 era).

    The answer is looked up by the question's key in the call's `RoundTrip`, whose answers the
    SDK's request-state boundary has verified as this server's, for this tool and these exact
    arguments (see round_trips.py).
    """

    def __init__(self, round_trip: RoundTrip) -> None:
        self.round_trip = round_trip

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        import mcp_types

        trip = self.round_trip
        key = trip.key("approval")
        given = trip.answer(key, mcp_types.ElicitResult)
        if given is not None:
            return answer_of(given)
        ask = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message=question(request), requested_schema=APPROVAL_SCHEMA
            )
        )
        trip.ask(key, ask)
        return ApprovalAnswer(False, "once", "waiting for the client's answer")
