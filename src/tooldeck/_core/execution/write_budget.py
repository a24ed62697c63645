"""The chain link that bounds what one call may write into the workspace (`sandbox.limits.disk_mb`).

A call of a tool that can change things gets a `WriteBudget` for its handler and all it starts;
a nested call (`execute_code`'s) shares its parent's. The file layer counts each file it writes
into the workspace against it before writing (`fs/observe.py`), and the tools that run commands
count what a command would land the same way, so going over is that call's error, whichever way
the bytes come.
"""

from __future__ import annotations

from typing import ClassVar

from tooldeck._core.execution.middleware import CallNext, ToolCallRequest
from tooldeck._core.execution.types import ToolResult
from tooldeck._core.fs.observe import WRITES, WriteBudget


class WriteBudgeting:
    """The `budget` link (see the module docstring)."""

    name: ClassVar[str] = "budget"

    def __init__(self, root: str, limit_mb: int) -> None:
        self.root, self.limit_mb = root, limit_mb

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await self.bind(call_next)(call)

    def bind(self, call_next: CallNext) -> CallNext:
        root, limit_mb = self.root, self.limit_mb

        async def budgeted(call: ToolCallRequest) -> ToolResult:
            if call.tool.read_only or WRITES.get() is not None:
                return await call_next(call)  # writes nothing, or shares its parent's budget
            token = WRITES.set(WriteBudget(root, limit_mb))
            try:
                return await call_next(call)
            finally:
                WRITES.reset(token)

        return budgeted
