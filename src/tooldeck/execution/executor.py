"""The Executor: from the model's tool calls to the results it reads (spec X1-X6).

    calls --prepare--> ValidatedCall --police--> run (async / daemon thread, timeout) --shape--> ToolResult

`execute(calls)` returns exactly one result per call id, in the model's order, whatever
happens: a malformed call, an unknown tool, a refusal, an exception, a timeout, cancellation.
A duplicated id is answered once (the later call is not run; an event reports it).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from tooldeck.assembly.loadout import Loadout
from tooldeck.context import ToolContext
from tooldeck.execution.calls import CallRejected, ToolIndex, prepare
from tooldeck.execution.events import EventKind, EventSink, ExecutionEvent
from tooldeck.execution.policy import ApprovalFlagPolicy, ApprovalRequest, Approver, Policy
from tooldeck.execution.results import SpillStore, error_result, failure_result, shape
from tooldeck.execution.runner import CancelToken, run_sync
from tooldeck.execution.scheduler import BatchPlan, ResourceMode
from tooldeck.execution.settings import ExecutionSettings
from tooldeck.execution.types import ToolCall, ToolFailure, ToolResult, ValidatedCall
from tooldeck.workspace import Workspace

__all__ = ["CancelToken", "ExecutionSettings", "Executor"]


@dataclass(eq=False)
class _Batch:
    state: dict[str, Any]
    loop: asyncio.AbstractEventLoop
    cancel_requested: bool = False
    owner: asyncio.Task[Any] | None = None  # the caller's task while a lone call runs inline
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    approval_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def cancel(self) -> None:
        if self.cancel_requested:
            return
        self.cancel_requested = True
        for task in self.tasks:
            task.cancel()
        if self.owner is not None:
            self.owner.cancel()


class Executor:
    """Runs tool calls against one loadout. Cheap to build; build one per loadout."""

    def __init__(
        self,
        loadout: Loadout,
        *,
        settings: ExecutionSettings | None = None,
        policy: Policy | None = None,
        approver: Approver | None = None,
        events: EventSink | None = None,
        workspace: Path | None = None,
        session_id: str | None = None,
        spill_dir: Path | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        from tooldeck.tools.results import read_result

        self.loadout = loadout
        self.settings = settings or ExecutionSettings()
        self.policy: Policy = policy or ApprovalFlagPolicy(self.settings.approval_mode)
        self._custom_policy = policy is not None
        self.approver = approver
        self.events = events
        self.workspace = Workspace.of(workspace if workspace is not None else self.settings.workspace)
        self.session_id = session_id
        self.spill = SpillStore(_spill_root(spill_dir, session_id))
        self.extra = dict(extra or {})
        tools = {t.name: t for t in (*loadout.deferred, *loadout.exposed)}
        tools.setdefault(read_result.name, read_result)  # truncation markers point at it
        hidden = {f.name: (f.gate, f.reason) for f in loadout.hidden if f.name not in tools}
        self._index = ToolIndex(tools, hidden=hidden, normalise=self.settings.normalize_names)
        self._deferred = frozenset(loadout.deferred_names)
        skills = self.settings.skills_allowed
        self._skills: frozenset[str] | None = (
            skills if skills is not None else loadout.settings.get("skills_allowed")
        )
        self._batches: set[_Batch] = set()
        self._grants: set[tuple[str, str | None]] = set()

    # -- public API ------------------------------------------------------------------------

    async def execute(
        self,
        calls: Sequence[ToolCall],
        *,
        state: dict[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[ToolResult]:
        """Run a batch; one result per distinct call id, in the order the model emitted them."""
        batch = _Batch(state if state is not None else {}, asyncio.get_running_loop())
        unique = self._dedupe(calls)
        if cancel is not None and cancel.cancelled:
            return [
                self._cancelled(c.id, c.name, "the batch was cancelled before it started") for c in unique
            ]
        self._batches.add(batch)
        unsubscribe = cancel.on_cancel(partial(self._cancel_soon, batch)) if cancel is not None else None
        try:
            if len(unique) == 1:
                return [await self._inline(unique[0], batch)]
            return await self._run_batch(unique, batch)
        finally:
            self._batches.discard(batch)
            if unsubscribe is not None:
                unsubscribe()

    def execute_sync(
        self,
        calls: Sequence[ToolCall],
        *,
        state: dict[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[ToolResult]:
        """`execute` for synchronous callers (runs its own event loop, in a helper thread if needed)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.execute(calls, state=state, cancel=cancel))
        out: list[list[ToolResult]] = []
        worker = threading.Thread(
            target=lambda: out.append(asyncio.run(self.execute(calls, state=state, cancel=cancel))),
            daemon=True,
        )
        worker.start()
        worker.join()
        return out[0]

    def cancel(self) -> None:
        """Cancel every batch in flight (thread-safe); their calls end with `cancelled` results."""
        for batch in list(self._batches):
            self._cancel_soon(batch)

    # -- batches ---------------------------------------------------------------------------

    def _dedupe(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        seen: set[str] = set()
        unique: list[ToolCall] = []
        for call in calls:
            if call.id in seen:
                self._emit(
                    "duplicate_id",
                    call.id,
                    call.name,
                    message="a call with this id was already in the batch; not run",
                )
                continue
            seen.add(call.id)
            unique.append(call)
        return unique

    def _cancel_soon(self, batch: _Batch) -> None:
        # A closed loop means the batch is over: nothing left to cancel.
        with contextlib.suppress(RuntimeError):
            batch.loop.call_soon_threadsafe(batch.cancel)

    async def _inline(self, call: ToolCall, batch: _Batch) -> ToolResult:
        started = time.perf_counter()
        prepared = self._prepare(call, started)
        if isinstance(prepared, ToolResult):
            return prepared
        batch.owner = asyncio.current_task()
        try:
            return await self._run(prepared, batch, started)
        finally:
            batch.owner = None

    async def _run_batch(self, calls: list[ToolCall], batch: _Batch) -> list[ToolResult]:
        plan = BatchPlan()
        semaphore = asyncio.Semaphore(self.settings.max_concurrency)
        slots: list[asyncio.Future[ToolResult]] = []
        for call in calls:
            started = time.perf_counter()
            prepared = self._prepare(call, started)
            if isinstance(prepared, ToolResult):
                done: asyncio.Future[ToolResult] = batch.loop.create_future()
                done.set_result(prepared)
                slots.append(done)
                continue
            exclusive = prepared.tool.interactive or prepared.tool.sequential
            keys = self._resource_keys(prepared)
            deps = plan.dependencies(exclusive=exclusive, keys=keys)
            task = batch.loop.create_task(self._scheduled(prepared, deps, semaphore, batch, started))
            batch.tasks.append(task)
            plan.started(task, exclusive=exclusive, keys=keys)
            slots.append(task)
        if batch.cancel_requested:
            for task in batch.tasks:
                task.cancel()
        return list(await asyncio.gather(*slots))

    async def _scheduled(
        self,
        prepared: ValidatedCall,
        deps: list[asyncio.Future[Any]],
        semaphore: asyncio.Semaphore,
        batch: _Batch,
        started: float,
    ) -> ToolResult:
        try:
            if deps:
                await asyncio.wait(deps)
            async with semaphore:
                return await self._run(prepared, batch, started)
        except asyncio.CancelledError:  # our own task: cancelled by the batch, never by others
            return self._finished(
                self._cancelled(prepared.id, prepared.name, "the batch was cancelled"), started
            )

    def _resource_keys(self, prepared: ValidatedCall) -> list[tuple[str, ResourceMode]]:
        meta = prepared.tool.meta
        if not meta:
            return []
        mode: ResourceMode = "read" if meta.get("resource_mode") == "read" else "write"
        arg = meta.get("resource_arg")
        if isinstance(arg, str):
            value = prepared.arguments.get(arg)
            return [(f"path:{self.workspace.key(value)}", mode)] if isinstance(value, str) else []
        keyer = meta.get("resource_key")
        if callable(keyer):
            key = keyer(prepared.arguments)
            return [(str(key), mode)] if key is not None else []
        return []

    # -- one call --------------------------------------------------------------------------

    def _prepare(self, call: ToolCall, started: float) -> ValidatedCall | ToolResult:
        events = self.events
        if events is not None:
            self._emit("started", call.id, call.name, data={"arguments": call.arguments})
        try:
            prepared = prepare(call, self._index)
        except CallRejected as rejected:
            err = rejected.error
            return self._finished(
                error_result(call.id, err.tool, err.type, err.message, retryable=err.retryable), started
            )
        if events is not None:
            self._emit("validated", call.id, prepared.name, data={"arguments": prepared.arguments})
        return prepared

    async def _run(self, vc: ValidatedCall, batch: _Batch, started: float) -> ToolResult:
        refused = await self._police(vc, batch, started)
        if refused is not None:
            return refused
        tool = vc.tool
        timeout = self.settings.timeout_for(tool.timeout)
        cancel_event = threading.Event() if not tool.is_async or tool.context_param else None
        context = self._context(vc, batch, cancel_event) if tool.context_param else None
        deadline = asyncio.timeout(timeout)
        try:
            async with deadline:
                if tool.is_async:
                    value = await tool.call(vc.arguments, context)
                else:
                    value = await run_sync(partial(tool.call, vc.arguments, context), cancel_event)
            shaped = shape(
                value,
                tool,
                call_id=vc.id,
                limit=tool.max_result_chars or self.settings.max_result_chars,
                spill=self.spill,
            )
        except TimeoutError:
            if not deadline.expired():
                return self._crashed(vc, started)  # the handler's own TimeoutError (a socket, ...)
            if cancel_event is not None:
                cancel_event.set()
            message = f"tool {tool.name!r} did not finish within {timeout:g} s and was stopped"
            return self._finished(error_result(vc.id, tool.name, "timeout", message, retryable=True), started)
        except ToolFailure as exc:
            return self._finished(
                failure_result(vc.id, tool.name, exc, time.perf_counter() - started), started
            )
        except asyncio.CancelledError:
            if cancel_event is not None:
                cancel_event.set()
            if not batch.cancel_requested:
                raise
            task = asyncio.current_task()
            if task is not None and task is batch.owner:
                task.uncancel()
            return self._finished(self._cancelled(vc.id, tool.name, "the batch was cancelled"), started)
        except Exception:  # boundary: a tool's own failure becomes a tool_error result, never a crash
            return self._crashed(vc, started)
        if shaped.spilled is not None:
            self._emit("spilled", vc.id, tool.name, data={"result_id": shaped.spilled})
        content = f"[note: {vc.note}]\n{shaped.content}" if vc.note else shaped.content
        result = ToolResult(
            vc.id, tool.name, content, None, shaped.update, shaped.interrupt, time.perf_counter() - started
        )
        return self._finished(result, started)

    async def _police(self, vc: ValidatedCall, batch: _Batch, started: float) -> ToolResult | None:
        name = vc.tool.name
        if name in self._deferred and name not in self.settings.promoted_names():
            message = (
                f"tool {name!r} is deferred: its schema has not been loaded yet. Call tool_search "
                f"(e.g. query 'select:{name}') to load it, then call {name!r} again"
            )
            return self._refused(vc, "not_promoted", message, True, started)
        if self._skills is not None and name not in self._skills and name != "read_result":
            message = f"tool {name!r} is not allowed by the active skills (not in their allowed_tools)"
            return self._refused(vc, "denied", message, False, started)
        if not self._custom_policy and not vc.tool.requires_approval:
            return None
        decision = await self.policy.decide(vc)
        if decision.kind == "allow":
            return None
        self._emit("policy", vc.id, name, outcome=decision.kind, message=decision.reason)
        if decision.kind == "deny":
            return self._refused(vc, "denied", f"refused by policy: {decision.reason}", False, started)
        if (name, decision.rule) in self._grants:
            return None
        if self.approver is None:
            message = (
                f"{decision.reason}, and nobody can approve it here (non-interactive); "
                "the call was not run (approve up front with --yes, or set approvals.mode: allow)"
            )
            return self._refused(vc, "denied", message, False, started)
        async with batch.approval_lock:
            answer = await self.approver.approve(ApprovalRequest(vc, decision.reason, decision.rule))
        self._emit(
            "policy", vc.id, name, outcome="approved" if answer.approved else "refused", message=answer.reason
        )
        if not answer.approved:
            why = f": {answer.reason}" if answer.reason else ""
            return self._refused(
                vc, "denied", f"{decision.reason}; the user did not approve it{why}", False, started
            )
        if answer.scope != "once":
            self._grants.add((name, decision.rule))
        return None

    def _context(self, vc: ValidatedCall, batch: _Batch, cancel_event: threading.Event | None) -> ToolContext:
        extra = {**self.extra, "spill": self.spill, "workspace": self.workspace}
        return ToolContext(
            call_id=vc.id,
            tool_name=vc.name,
            workspace=self.workspace.root,
            session_id=self.session_id,
            state=batch.state,
            cancelled=cancel_event or threading.Event(),
            extra=extra,
        )

    # -- results and events ----------------------------------------------------------------

    def _refused(
        self, vc: ValidatedCall, kind: Any, message: str, retryable: bool, started: float
    ) -> ToolResult:
        return self._finished(error_result(vc.id, vc.name, kind, message, retryable=retryable), started)

    def _cancelled(self, call_id: str, tool: str, why: str) -> ToolResult:
        return error_result(call_id, tool, "cancelled", f"{why}; the call did not complete")

    def _crashed(self, vc: ValidatedCall, started: float) -> ToolResult:
        trace = traceback.format_exc()
        exc_line = trace.rstrip().splitlines()[-1] if trace.strip() else "unknown error"
        message = f"tool {vc.name!r} failed: {exc_line}"
        result = error_result(vc.id, vc.name, "tool_error", message, duration_s=time.perf_counter() - started)
        return self._finished(result, started, trace)

    def _finished(self, result: ToolResult, started: float, trace: str | None = None) -> ToolResult:
        if result.error is not None and not result.duration_s:
            result = replace(result, duration_s=time.perf_counter() - started)
        if self.events is not None:
            outcome = result.error.type if result.error is not None else "ok"
            message = result.error.message if result.error is not None else None
            self.events.emit(
                ExecutionEvent(
                    "finished",
                    result.call_id,
                    result.name,
                    outcome=outcome,
                    duration_s=time.perf_counter() - started,
                    message=message,
                    traceback=trace,
                )
            )
        elif trace is not None:
            from tooldeck.execution.events import log

            log.warning("tool %s (%s) failed\n%s", result.name, result.call_id, trace)
        return result

    def _emit(self, kind: EventKind, call_id: str, tool: str, **fields: Any) -> None:
        if self.events is not None:
            self.events.emit(ExecutionEvent(kind, call_id, tool, **fields))


def _spill_root(spill_dir: Path | None, session_id: str | None) -> Path:
    import tempfile

    base = spill_dir if spill_dir is not None else Path(tempfile.gettempdir()) / "tooldeck-spill"
    return base / (session_id or f"run-{int(time.time() * 1000)}-{threading.get_ident()}")
