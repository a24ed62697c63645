"""The chain link that checkpoints a call (see tooldeck._core.checkpoints).

For a call of a tool that can change things (not read-only), a `Recording` becomes the file
layer's observer for the call's handler and all it starts; a nested call (`execute_code`'s)
joins its parent's recording. When the call ends, what it left is recorded.
"""

from __future__ import annotations

from tooldeck._core.checkpoints.recording import CURRENT, Recording
from tooldeck._core.checkpoints.store import CheckpointStore
from tooldeck._core.execution.middleware import CallNext, ToolCallRequest
from tooldeck._core.execution.types import ToolResult
from tooldeck._core.fs.observe import BEFORE_CHANGE
from tooldeck._core.workspace import Workspace


class Checkpointing:
    """The chain link (see the module docstring)."""

    def __init__(self, store: CheckpointStore, workspace: Workspace) -> None:
        self.store = store
        self.workspace = workspace

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await self.bind(call_next)(call)

    def bind(self, call_next: CallNext) -> CallNext:
        store, workspace = self.store, self.workspace

        async def checkpointed(call: ToolCallRequest) -> ToolResult:
            if call.tool.read_only or CURRENT.get() is not None:
                return await call_next(call)  # changes nothing, or part of its parent's checkpoint
            recording = Recording(
                store, workspace, tool=call.name, call_id=call.id, session_id=call.session_id
            )
            current, observer = CURRENT.set(recording), BEFORE_CHANGE.set(recording.observe)
            try:
                return await call_next(call)
            finally:
                BEFORE_CHANGE.reset(observer)
                CURRENT.reset(current)
                recording.finish()

        return checkpointed
