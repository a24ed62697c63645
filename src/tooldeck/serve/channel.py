"""A running tool talking to the MCP client of its call: `notifications/progress` when the client
gave a progress token, `notifications/message` at or above the level it set (`logging/setLevel`;
every level until it does), `elicitation/create` for a tool's form and `sampling/createMessage`
for a tool's question to the client's model, each only when the client declared it.

Handshake-era sessions (2025 protocol versions) are asked on the call's own request stream. A
2026-07-28 client is asked through `input_required` round trips (round_trips.py): the question
goes back in the call's result, the client answers and calls again, and the tool, run again,
finds its answer. A call that went on as a task (tasks.py) asks in the task instead: its
questions wait in `inputRequests` until the client answers with `tasks/update`, and its progress
and log messages stay in the tooldeck log (a progress message is the task's status message).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck.core import (
    LOGGING_LEVELS,
    Elicitation,
    ElicitationRequest,
    LogEntry,
    LoggingLevel,
    ProgressReport,
    Root,
    RootsRequest,
    Sample,
    SamplingRequest,
    TaskRequest,
    ToolChannel,
)
from tooldeck.errors import ToolError
from tooldeck.serve.approvals import supports_elicitation
from tooldeck.serve.round_trips import RoundTrip
from tooldeck.serve.tasks import ServedTask, TaskHandoff

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.session import ServerSession
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


class ServeChannel(ToolChannel):
    def __init__(
        self,
        session: ServerSession,
        request_id: Any,
        *,
        level: LoggingLevel | None,
        round_trip: RoundTrip | None = None,
        handoff: TaskHandoff | None = None,
    ) -> None:
        self.session = session
        self.request_id = request_id
        self.level = level  # the session's logging/setLevel (None: every level)
        self.round_trip = round_trip  # 2026-07-28: questions go back in the result
        self.handoff = handoff  # the call may go on as a task (the client declared tasks)
        # 2026-07-28: a capability the call needed and the client did not declare (the call is
        # then refused with -32021, MISSING_REQUIRED_CLIENT_CAPABILITY).
        self.missing: str | None = None

    @property
    def task(self) -> ServedTask | None:
        """The task this call went on as, if it did."""
        return self.handoff.task if self.handoff is not None else None

    async def as_task(self, request: TaskRequest) -> bool:
        return self.handoff is not None and await self.handoff.request(request.message)

    async def progress(self, report: ProgressReport) -> None:
        await super().progress(report)
        if (task := self.task) is not None:
            task.progressed(report.message)
            return
        if self.handoff is not None and report.message:
            self.handoff.progress = report.message
        await self.session.report_progress(
            report.progress, report.total, report.message
        )  # a no-op without a token

    async def log(self, entry: LogEntry) -> None:
        await super().log(entry)
        if self.task is not None:
            return  # a task's messages stay in the tooldeck log
        level = entry.level
        if self.level is not None and LOGGING_LEVELS.index(level) < LOGGING_LEVELS.index(self.level):
            return
        payload = entry.message if entry.data is None else {"message": entry.message, "data": entry.data}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # logging is deprecated in 2026-07-28, still served
            await self.session.send_log_message(
                level, payload, logger=entry.tool, related_request_id=self.request_id
            )

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        if not supports_elicitation(self.session.client_capabilities):
            return Elicitation("decline", reason="the MCP client did not declare elicitation")
        import mcp_types
        from mcp.shared.exceptions import MCPError, NoBackChannelError

        trip = self.round_trip
        if trip is not None:
            params = mcp_types.ElicitRequestFormParams(
                message=request.message, requested_schema=dict(request.schema)
            )
            ask = mcp_types.ElicitRequest(params=params)
            return _elicitation(
                await self._answered(trip, "elicit", request.key, mcp_types.ElicitResult, ask)
            )

        try:
            result = await self.session.elicit_form(
                request.message, dict(request.schema), related_request_id=self.request_id
            )
        except (MCPError, NoBackChannelError, OSError) as exc:
            return Elicitation("decline", reason=f"the client could not be asked ({exc})")
        return _elicitation(result)

    async def sample(self, request: SamplingRequest) -> Sample:
        capabilities = self.session.client_capabilities
        if capabilities is None or capabilities.sampling is None:
            if self.round_trip is not None:
                self._needs("sampling")
            raise ToolError(
                f"tool {request.tool!r} asked the client's model, and the MCP client did not declare sampling",
                type="unavailable",
            )
        import mcp_types
        from mcp.shared.exceptions import MCPError, NoBackChannelError

        messages = [
            mcp_types.SamplingMessage(role=m.role, content=mcp_types.TextContent(text=m.text))
            for m in request.messages
        ]
        trip = self.round_trip
        if trip is not None:
            params = mcp_types.CreateMessageRequestParams(
                messages=messages,
                max_tokens=request.max_tokens,
                system_prompt=request.system,
                temperature=request.temperature,
            )
            ask = mcp_types.CreateMessageRequest(params=params)
            return _sample(
                await self._answered(trip, "sample", request.key, mcp_types.CreateMessageResult, ask)
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # sampling is deprecated in 2026-07-28, still served
                result = await self.session.create_message(
                    messages,
                    max_tokens=request.max_tokens,
                    system_prompt=request.system,
                    temperature=request.temperature,
                    related_request_id=self.request_id,
                )
        except (MCPError, NoBackChannelError, OSError) as exc:
            raise ToolError(f"the client's model could not answer: {exc}", type="unavailable") from None
        return _sample(result)

    async def list_roots(self, request: RootsRequest) -> tuple[Root, ...]:
        capabilities = self.session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return ()  # the client declared no roots
        import mcp_types
        from mcp.shared.exceptions import MCPError, NoBackChannelError

        trip = self.round_trip
        if trip is not None:
            asked = mcp_types.ListRootsRequest()
            return _roots(await self._answered(trip, "roots", request.key, mcp_types.ListRootsResult, asked))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # roots are deprecated in 2026-07-28, still served
                return _roots(await self.session.list_roots())
        except (MCPError, NoBackChannelError, OSError) as exc:
            raise ToolError(f"the client's roots could not be listed: {exc}", type="unavailable") from None

    async def _answered(
        self, trip: RoundTrip, kind: str, named: str | None, result: type[M], request: mcp_types.InputRequest
    ) -> M:
        """The answer to a question: from an earlier round trip, else asked in the task the call
        went on as (waiting for `tasks/update`), else in the next round trip."""
        task = self.task
        if task is None:
            return trip.answered(kind, named, result, request)
        key = trip.key(kind, named)
        found = trip.answer(key, result)
        return found if found is not None else await task.ask(key, request, result)

    def _needs(self, capability: str) -> None:
        self.missing = capability
        raise ToolError(f"the MCP client did not declare {capability}", type="unavailable")


def _roots(result: mcp_types.ListRootsResult) -> tuple[Root, ...]:
    return tuple(Root(str(r.uri), r.name) for r in result.roots)


def _elicitation(result: mcp_types.ElicitResult) -> Elicitation:
    return Elicitation(result.action, dict(result.content) if result.content is not None else None)


def _sample(result: Any) -> Sample:
    content = result.content
    text = getattr(content, "text", None)
    if text is None:
        raise ToolError(f"the client's model answered {getattr(content, 'type', '?')} content, not text")
    return Sample(text, result.model, result.stop_reason)
