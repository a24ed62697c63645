"""A running tool talking to the MCP client of its call: `notifications/progress` when the client
gave a progress token, `notifications/message` at or above the level it set (`logging/setLevel`;
every level until it does), `elicitation/create` for a tool's form and `sampling/createMessage`
for a tool's question to the client's model, each only when the client declared it.

Handshake-era sessions (2025 protocol versions) are asked on the call's own request stream. A
2026-07-28 client takes questions only as `input_required` round trips, which tooldeck sends for
approvals alone: a running tool's form there is declined and its sampling an error, both saying
why (progress and per-request logging still reach it).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from tooldeck.core import (
    LOGGING_LEVELS,
    Elicitation,
    ElicitationRequest,
    LoggingLevel,
    Sample,
    SamplingRequest,
    ToolChannel,
    ToolContext,
)
from tooldeck.errors import ToolError
from tooldeck.serve.approvals import supports_elicitation

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

_MODERN = "this client speaks the 2026-07-28 revision, which asks users (elicitation) and models (sampling) only through input_required round trips; tooldeck serve sends those for approvals alone"


class ServeChannel(ToolChannel):
    def __init__(
        self, session: ServerSession, request_id: Any, *, level: LoggingLevel | None, handshake: bool
    ) -> None:
        self.session = session
        self.request_id = request_id
        self.level = level  # the session's logging/setLevel (None: every level)
        self.handshake = handshake

    async def progress(
        self, context: ToolContext, progress: float, total: float | None, message: str | None
    ) -> None:
        await super().progress(context, progress, total, message)
        await self.session.report_progress(progress, total, message)  # a no-op without a token

    async def log(self, context: ToolContext, level: LoggingLevel, message: str, data: Any) -> None:
        await super().log(context, level, message, data)
        if self.level is not None and LOGGING_LEVELS.index(level) < LOGGING_LEVELS.index(self.level):
            return
        payload = message if data is None else {"message": message, "data": data}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # logging is deprecated in 2026-07-28, still served
            await self.session.send_log_message(
                level, payload, logger=context.tool_name, related_request_id=self.request_id
            )

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        if not self.handshake:
            return Elicitation("decline", reason=_MODERN)
        if not supports_elicitation(self.session.client_capabilities):
            return Elicitation("decline", reason="the MCP client did not declare elicitation")
        from mcp.shared.exceptions import MCPError, NoBackChannelError

        try:
            result = await self.session.elicit_form(
                request.message, dict(request.schema), related_request_id=self.request_id
            )
        except (MCPError, NoBackChannelError, OSError) as exc:
            return Elicitation("decline", reason=f"the client could not be asked ({exc})")
        return Elicitation(result.action, dict(result.content) if result.content is not None else None)

    async def sample(self, request: SamplingRequest) -> Sample:
        capabilities = self.session.client_capabilities
        if not self.handshake:
            raise ToolError(f"tool {request.tool!r} asked the client's model: {_MODERN}", type="unavailable")
        if capabilities is None or capabilities.sampling is None:
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
        content = result.content
        text = getattr(content, "text", None)
        if text is None:
            raise ToolError(f"the client's model answered {getattr(content, 'type', '?')} content, not text")
        return Sample(text, result.model, result.stop_reason)
