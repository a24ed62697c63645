"""`ToolCaller`: a running tool calls the other tools of its loadout, as the model would.

A handler asks for it with `context.get(ToolCaller)`. Each call goes through the executor that
runs the handler - parsing, validation, skills, the policy and approvals (the same approver and
session grants), timeouts, result shaping - so code run by a tool can do nothing the model could
not do directly. Calls are made from the handler's worker thread and run on the executor's event
loop; the handler's cancellation (its timeout, a cancelled batch) cancels a call in flight.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import itertools
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck._core.run_state import RunState
from tooldeck._core.tool import Tool


class Executes(Protocol):
    """What a ToolCaller uses of the executor that runs its handler (the executor builds the
    caller, so it is described here rather than imported)."""

    @property
    def loadout(self) -> Loadout: ...

    async def execute(
        self, calls: Sequence[ToolCall], *, state: RunState | None = None
    ) -> list[ToolResult]: ...


class ToolCaller:
    """Calls tools of the current loadout through the full execution path (from a worker thread)."""

    def __init__(
        self,
        executor: Executes,
        loop: asyncio.AbstractEventLoop,
        *,
        state: RunState,
        parent_id: str,
        cancel: threading.Event | None = None,
    ) -> None:
        self.executor = executor
        self.loop = loop
        self.state = state
        self.parent_id = parent_id
        self.cancel = cancel
        self._ids = itertools.count(1)
        # The parent call's context (made from its handler): its nested calls run in it, so they
        # join its checkpoint and its trace span.
        self._context = contextvars.copy_context()

    @property
    def exposed(self) -> tuple[Tool, ...]:
        """The tools the model sees right now (the ones a tool may offer to call)."""
        return self.executor.loadout.exposed

    def call(self, name: str, arguments: Mapping[str, Any] | str | None) -> ToolResult:
        """Run one call and wait for its result; raises CancelledError if the parent is cancelled."""
        call = ToolCall(f"{self.parent_id}.{next(self._ids)}", name, arguments)
        coro = self.executor.execute([call], state=self.state)
        future = self._context.copy().run(asyncio.run_coroutine_threadsafe, coro, self.loop)
        while True:
            try:
                [result] = future.result(timeout=0.05)
                return result
            except concurrent.futures.TimeoutError:
                if self.cancel is not None and self.cancel.is_set():
                    future.cancel()
                    raise concurrent.futures.CancelledError(f"{self.parent_id} was stopped") from None


__all__ = ["ToolCaller"]
