"""The chain link that checkpoints a call (see tooldeck._core.checkpoints).

For a call of a tool that can change things (not read-only), a `Recording` becomes the file
layer's observer for the call's handler and all it starts; a nested call (`execute_code`'s)
joins its parent's recording. When the call ends, what it left is recorded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

from tooldeck._core.checkpoints.recording import CURRENT, Ask, Checkpointed, Recording
from tooldeck._core.checkpoints.store import CheckpointStore
from tooldeck._core.context import Approvals, ToolContext
from tooldeck._core.execution.middleware import CallNext, ToolCallRequest
from tooldeck._core.execution.types import ToolResult
from tooldeck._core.workspace import Workspace


class Checkpointing:
    """The `checkpoint` link (see the module docstring)."""

    name: ClassVar[str] = "checkpoint"

    def __init__(
        self, store: CheckpointStore, workspace: Workspace, approvals: Approvals | None = None
    ) -> None:
        self.store = store
        self.workspace = workspace
        # Who is asked when a change is too large to checkpoint (like a deletion, it needs consent).
        self.approvals = approvals

    def _recording(self, call: ToolCallRequest) -> Recording:
        """The recording of `call`, made when it first changes something (maybe in its thread)."""
        recording = Recording(
            self.store, self.workspace, tool=call.name, call_id=call.id, session_id=call.session_id
        )
        if self.approvals is not None:
            recording.ask = _asker(self.approvals, call, _loop_of(call))
        return recording

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await self.bind(call_next)(call)

    def bind(self, call_next: CallNext) -> CallNext:
        make = self._recording

        async def checkpointed(call: ToolCallRequest) -> ToolResult:
            if call.tool.read_only or CURRENT.get() is not None:
                return await call_next(call)  # changes nothing, or part of its parent's checkpoint
            with Checkpointed(make, call):
                return await call_next(call)

        return checkpointed


def _loop_of(call: ToolCallRequest) -> asyncio.AbstractEventLoop | None:
    loop = getattr(call.batch, "loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


def _asker(approvals: Approvals, call: ToolCallRequest, loop: asyncio.AbstractEventLoop | None) -> Ask:
    """How the recording of `call` asks for consent from the handler's thread."""
    context = ToolContext(call_id=call.id, tool_name=call.name, session_id=call.session_id, loop=loop)

    def ask(reason: str, rule: str, details: Mapping[str, Any]) -> bool:
        try:
            return approvals.ask_sync(context, reason=reason, rule=rule, details=details)
        except RuntimeError:  # written from the event loop's own thread: nobody can be asked there
            return False

    return ask
