"""The agent loop's `ToolChannel`: a running tool's progress and log messages become agent
events (`ToolProgress`, `ToolLogged`), its forms go to the agent's approver (the terminal in
`tooldeck run`/`chat`), and it may ask the agent's own model (sampling), without tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldeck.agent.events import EventSink
from tooldeck.agent.messages import Message
from tooldeck.agent.models.base import ModelClient, ModelRequest
from tooldeck.core import CallChannel, LogEntry, ProgressReport, Sample, SamplingRequest
from tooldeck.errors import ModelError, ToolError


class AgentChannel(CallChannel):
    def __init__(self, model: ModelClient, events: EventSink, approver: Callable[[], Any]) -> None:
        super().__init__(approver)
        self.model = model
        self.events = events

    async def progress(self, report: ProgressReport) -> None:
        await super().progress(report)
        self.events(report)

    async def log(self, entry: LogEntry) -> None:
        await super().log(entry)
        self.events(entry)

    async def sample(self, request: SamplingRequest) -> Sample:
        messages = tuple(Message(role=m.role, content=m.text) for m in request.messages)
        try:
            reply = await self.model.complete(ModelRequest(request.system, messages, loadout=None))
        except ModelError as exc:
            raise ToolError(
                f"the model could not answer the tool's question: {exc}", type="unavailable"
            ) from None
        return Sample(reply.message.content, reply.model or self.model.model_name, reply.stop_reason)
