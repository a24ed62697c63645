"""What a running tool may know about the call it serves.

A handler asks for it by annotating a parameter with `ToolContext`; that parameter is left out
of the schema the model sees and filled in by the executor. Layers above the tools hand their
services to tools through `services`, keyed by type: `context.get(Workspace)`,
`context.get(SpillStore)`, `context.get(AgentServices)` - typed, never by string keys. The
config reaches a tool the same way, one typed section at a time (`SandboxConfig`,
`ApprovalsConfig`, `ExecutionConfig`, `AgentConfig`), never the whole `Config`; `service(context,
kind)` is the lookup that fails with a clear error when the tool was called outside an executor.
A tool that needs approval for something it is about to do mid-call asks `context.get(Approvals)`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._core.run_state import RunState
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")


class Approvals:
    """How a running tool asks for approval of something it is about to do mid-call.

    A tool driving another agent (an ACP agent asking to write a file) asks here; the executor
    offers a subclass that follows the call's approvals (mode, grants, approver). This base is
    what a tool gets outside an executor: nobody can be asked, so the answer is no.
    """

    async def ask(self, context: ToolContext, *, reason: str, rule: str, details: Mapping[str, Any]) -> bool:
        """True when approved. `rule` names exactly what is approved (grants are bound to it)."""
        return False

    def ask_sync(self, context: ToolContext, *, reason: str, rule: str, details: Mapping[str, Any]) -> bool:
        """`ask` from a synchronous handler's thread: asked on the executor's event loop, this
        thread waiting for the answer. No loop to ask on (called outside an executor): no."""
        import asyncio

        loop = context.loop
        if loop is None:
            return False
        if asyncio._get_running_loop() is loop:
            raise RuntimeError("ask_sync is for a handler's worker thread; on the event loop, await ask()")
        answer = asyncio.run_coroutine_threadsafe(
            self.ask(context, reason=reason, rule=rule, details=details), loop
        )
        return bool(answer.result())


@dataclass(slots=True)
class ToolContext:
    """Per-call context handed to handlers that ask for it."""

    call_id: str = ""
    tool_name: str = ""
    workspace: Path | None = None
    # The tooldeck home of the session (memory, caches); never inside the tools' reach.
    home: Path | None = None
    session_id: str | None = None
    # Run state shared by the tools of one run (promotions, todo list, artifacts).
    state: RunState = field(default_factory=RunState)
    # Set when the batch is cancelled; long-running sync handlers should poll it.
    cancelled: threading.Event = field(default_factory=threading.Event)
    # Objects offered by the layers running the call, keyed by their type (an application
    # offers its own through `Deck.session(services=...)`).
    services: Mapping[type, object] = field(default_factory=dict)
    # The executor's event loop (a synchronous handler's thread asks approvals on it).
    loop: asyncio.AbstractEventLoop | None = None

    def get(self, kind: type[T]) -> T | None:
        """The service of type `kind` offered to this call, or None."""
        found = self.services.get(kind)
        return found if isinstance(found, kind) else None


def service(context: ToolContext | None, kind: type[T]) -> T:
    """A service every executor offers its calls; missing means the tool was called outside
    one, which is a bug of the caller, not something to paper over with defaults."""
    found = context.get(kind) if context is not None else None
    if found is None:
        raise ToolError(
            f"this tool needs the {kind.__name__} of the call it serves; run it through "
            "tooldeck's executor (deck.call, tooldeck call, an agent), not by calling its handler"
        )
    return found
