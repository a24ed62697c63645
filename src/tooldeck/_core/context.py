"""What a running tool may know about the call it serves.

A handler asks for it by annotating a parameter with `ToolContext`; that parameter is left out
of the schema the model sees and filled in by the executor. Layers above the tools hand their
services to tools through `services`, keyed by type: `context.get(Workspace)`,
`context.get(SpillStore)`, `context.get(AgentServices)` - typed, never by string keys. The
config reaches a tool the same way, one typed section at a time (`SandboxConfig`,
`ApprovalsConfig`, `ExecutionConfig`, `AgentConfig`), never the whole `Config`; `service(context,
kind)` is the lookup that fails with a clear error when the tool was called outside an executor.
A tool that needs approval for something it is about to do mid-call asks `context.get(Approvals)`.
A tool talks back through the context too: progress, log messages, questions to the user and to
a model (`report_progress`, `log`, `elicit`, `sample`; see `channel.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._core.channel import (
    LEVELS,
    Elicitation,
    ElicitationRequest,
    LogEntry,
    LoggingLevel,
    ProgressReport,
    Root,
    RootsRequest,
    Sample,
    SamplingMessage,
    SamplingRequest,
    TaskRequest,
    ToolChannel,
    check_form,
    checked_answer,
    sampling_messages,
)
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

    async def ask(
        self,
        context: ToolContext,
        *,
        reason: str,
        rule: str,
        details: Mapping[str, Any],
        deferrable: bool = False,
    ) -> bool:
        """True when approved. `rule` names exactly what is approved (grants are bound to it).
        `deferrable`: the tool can stop here and be decided later (it kept what it needs to
        finish without running again); then, where the run can wait, `ApprovalPending` is raised."""
        return False

    def can_wait(self) -> bool:
        """Whether a question asked with `deferrable=True` may stop the run to be decided later
        (so the tool should keep what it needs to finish without running again)."""
        return False

    def ask_sync(
        self,
        context: ToolContext,
        *,
        reason: str,
        rule: str,
        details: Mapping[str, Any],
        deferrable: bool = False,
    ) -> bool:
        """`ask` from a synchronous handler's thread: asked on the executor's event loop, this
        thread waiting for the answer. No loop to ask on (called outside an executor): no."""
        import asyncio

        loop = context.loop
        if loop is None:
            return False
        if asyncio._get_running_loop() is loop:
            raise RuntimeError("ask_sync is for a handler's worker thread; on the event loop, await ask()")
        answer = asyncio.run_coroutine_threadsafe(
            # Passed only when set: a subclass written before `deferrable` existed keeps working.
            self.ask(
                context,
                reason=reason,
                rule=rule,
                details=details,
                **({"deferrable": True} if deferrable else {}),
            ),
            loop,
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

    # -- talking back (channel.py) ----------------------------------------------------------

    @property
    def channel(self) -> ToolChannel:
        return self.get(ToolChannel) or _NOBODY

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """How far the call is (MCP `notifications/progress` when the client asked for them)."""
        total_ = None if total is None else float(total)
        await self.channel.progress(
            ProgressReport(self.tool_name, self.call_id, float(progress), total_, message)
        )

    async def log(self, level: LoggingLevel, message: str, data: Any = None) -> None:
        """A log message for whoever runs the call (MCP logging, agent events, tooldeck's log)."""
        if level not in LEVELS:
            raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
        await self.channel.log(LogEntry(self.tool_name, self.call_id, level, message, data))

    async def elicit(self, message: str, schema: Mapping[str, Any], *, key: str | None = None) -> Elicitation:
        """Ask the user to fill in a form (MCP elicitation); nobody to ask: declined. `key` names
        the question where answers come back by name (2026-07-28 round trips); several questions
        at once: `asyncio.gather` them."""
        form = check_form(schema)
        request = ElicitationRequest(self.tool_name, self.call_id, message, form, key)
        return checked_answer(form, await self.channel.elicit(request))

    async def list_roots(self, *, key: str | None = None) -> tuple[Root, ...]:
        """The roots the client works in (MCP roots); none where no client declared any."""
        return await self.channel.list_roots(RootsRequest(self.tool_name, self.call_id, key))

    async def sample(
        self,
        messages: str | Sequence[SamplingMessage | str],
        *,
        max_tokens: int = 1024,
        system: str | None = None,
        temperature: float | None = None,
        key: str | None = None,
    ) -> Sample:
        """Ask a model (MCP sampling: the client's; in the agent loop, the agent's own)."""
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        request = SamplingRequest(
            self.tool_name,
            self.call_id,
            sampling_messages(messages),
            max_tokens,
            system,
            temperature,
            key=key,
        )
        return await self.channel.sample(request)

    async def run_as_task(self, message: str | None = None) -> bool:
        """Go on as a task where the caller can take one (an MCP client of `tooldeck serve` that
        declared the tasks extension): the client gets a task handle now and polls for the result,
        and the questions asked from here on wait in the task (`input_required`) instead of
        making the client call again. True when the call is now a task; False where there is no
        such caller (the agent loop, `tooldeck call`), and the call simply goes on."""
        return await self.channel.as_task(TaskRequest(self.tool_name, self.call_id, message))

    def run_as_task_sync(self, message: str | None = None) -> bool:
        return self._blocking(self.run_as_task(message))

    def report_progress_sync(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self._blocking(self.report_progress(progress, total, message))

    def log_sync(self, level: LoggingLevel, message: str, data: Any = None) -> None:
        self._blocking(self.log(level, message, data))

    def elicit_sync(self, message: str, schema: Mapping[str, Any], *, key: str | None = None) -> Elicitation:
        return self._blocking(self.elicit(message, schema, key=key))

    def list_roots_sync(self, *, key: str | None = None) -> tuple[Root, ...]:
        return self._blocking(self.list_roots(key=key))

    def sample_sync(
        self,
        messages: str | Sequence[SamplingMessage | str],
        *,
        max_tokens: int = 1024,
        system: str | None = None,
        temperature: float | None = None,
        key: str | None = None,
    ) -> Sample:
        return self._blocking(
            self.sample(messages, max_tokens=max_tokens, system=system, temperature=temperature, key=key)
        )

    def _blocking(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the executor's loop from a synchronous handler's worker thread."""
        import asyncio

        loop = self.loop
        if loop is None or loop.is_closed():
            return asyncio.run(coro)  # outside an executor: nothing is bound to a loop
        if asyncio._get_running_loop() is loop:
            coro.close()
            raise RuntimeError(
                "the _sync methods are for a handler's worker thread; on the event loop, await them"
            )
        return asyncio.run_coroutine_threadsafe(coro, loop).result()


_NOBODY = ToolChannel()


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
