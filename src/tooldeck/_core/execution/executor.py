"""The Executor: from the model's tool calls to the results it reads.

    calls --resolve, parse--> ToolCallRequest --the chain--> ToolResult

The chain is composed once per executor (`compose`): tooldeck's links by name - trace,
validate, approvals, effects, frame, truncate, budget, checkpoint, run (`links`, `run_link`) - with the
user's middleware placed among them. The executor keeps what is not about one call: batching,
scheduling, cancellation (answered in one place, `_through`), events.

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
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Unpack

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.config import ExecutionConfig
from tooldeck._core.execution.calls import parse_arguments
from tooldeck._core.execution.compose import CallOptions, Promoted, compose
from tooldeck._core.execution.events import EventKind, ExecutionEvent, log
from tooldeck._core.execution.links import cancelled, refused, uncancel_owner
from tooldeck._core.execution.middleware import (
    CallNext,
    Middleware,
    ToolCallRequest,
    TruncateResults,
    chain,
)
from tooldeck._core.execution.policy import Approver, Policy
from tooldeck._core.execution.results import SpillStore, error_result
from tooldeck._core.execution.run_link import TRACE, CallSite, Run
from tooldeck._core.execution.runner import CancelToken
from tooldeck._core.execution.scheduler import Batch, BatchPlan, ResourceMode
from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ToolResult
from tooldeck._core.run_state import RunState
from tooldeck._core.workspace import Workspace
from tooldeck._utils.text import describe_exception
from tooldeck.errors import CallRejected

__all__ = ["CancelToken", "Executor", "Promoted", "every_deferred"]


def every_deferred(loadout: Loadout) -> Promoted:
    """Promotions under which every deferred tool of `loadout` counts as promoted.

    For callers that choose their tools themselves rather than a model that must find them with
    `tool_search` first: a person at the command line, a program calling `deck.call`, an MCP
    client with no session to remember promotions. Every other gate still applies.
    """
    names = frozenset(loadout.deferred_names)
    return lambda: names


class Executor:
    """Runs tool calls against one loadout, under the config it was assembled with.

    Cheap to build: the agent builds one per batch over the current loadout. Approval grants
    outlive it in a `Grants` object handed in by whoever owns the session.
    """

    def __init__(self, loadout: Loadout, **options: Unpack[CallOptions]) -> None:
        path = compose(loadout, **options)
        events, session_id = options.get("events"), options.get("session_id")
        self.path, self.loadout, self.events, self.session_id = path, loadout, events, session_id
        self.gate, self._index, self._batches = path.gate, path.index, set[Batch]()
        site = CallSite(path.workspace.root, path.home, session_id, path.services, self)
        self._chain: CallNext = chain(path.links, Run(path.limits, site).run)

    # What the executor was composed with (see `compose`).

    @property
    def limits(self) -> ExecutionConfig:
        return self.path.limits

    @property
    def workspace(self) -> Workspace:
        return self.path.workspace

    @property
    def home(self) -> Path:
        return self.path.home

    @property
    def spill(self) -> SpillStore:
        return self.path.spill

    @property
    def services(self) -> dict[type, object]:
        return self.path.services

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        return self.path.middleware

    @property
    def truncate(self) -> TruncateResults:
        return self.path.truncate

    @property
    def approver(self) -> Approver | None:
        return self.gate.approver

    @property
    def policy(self) -> Policy:
        return self.gate.policy

    # -- public API ------------------------------------------------------------------------

    async def execute(
        self,
        calls: Sequence[ToolCall],
        *,
        state: RunState | None = None,
        cancel: CancelToken | None = None,
    ) -> list[ToolResult]:
        """Run a batch; one result per distinct call id, in the order the model emitted them."""
        batch = Batch(state, asyncio.get_running_loop())
        unique = self._dedupe(calls) if len(calls) != 1 else calls
        if cancel is not None and cancel.cancelled:
            why = "the batch was cancelled before it started"
            return [self._finished(cancelled(c.id, c.name, why), time.perf_counter()) for c in unique]
        self._batches.add(batch)
        unsubscribe = cancel.on_cancel(partial(self._cancel_soon, batch)) if cancel is not None else None
        try:
            if len(unique) != 1:
                return await self._run_batch(unique, batch)
            # A lone call runs inline, in the caller's task (no task of its own to schedule).
            started = time.perf_counter()
            prepared = self._prepare(unique[0], started, batch)
            if isinstance(prepared, ToolResult):
                return [prepared]
            batch.owner = asyncio.current_task()
            return [await self._through(prepared)]
        finally:
            batch.owner = None
            self._batches.discard(batch)
            if unsubscribe is not None:
                unsubscribe()

    def execute_sync(
        self,
        calls: Sequence[ToolCall],
        *,
        state: RunState | None = None,
        cancel: CancelToken | None = None,
    ) -> list[ToolResult]:
        """`execute` for synchronous callers (runs its own event loop, in a helper thread if needed)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            running = False  # run below, outside the handler: tracebacks must not chain this error
        else:
            running = True
        if not running:
            return asyncio.run(self.execute(calls, state=state, cancel=cancel))
        out: list[list[ToolResult]] = []

        def work() -> None:
            out.append(asyncio.run(self.execute(calls, state=state, cancel=cancel)))

        worker = threading.Thread(target=work, daemon=True)
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
                why = "a call with this id was already in the batch; not run"
                self._emit("duplicate_id", call.id, call.name, message=why)
                continue
            seen.add(call.id)
            unique.append(call)
        return unique

    def _cancel_soon(self, batch: Batch) -> None:
        # A closed loop means the batch is over: nothing left to cancel.
        with contextlib.suppress(RuntimeError):
            batch.loop.call_soon_threadsafe(batch.cancel)

    async def _run_batch(self, calls: Sequence[ToolCall], batch: Batch) -> list[ToolResult]:
        plan = BatchPlan()
        semaphore = asyncio.Semaphore(self.limits.max_concurrency)
        slots: list[asyncio.Future[ToolResult]] = []
        for call in calls:
            started = time.perf_counter()
            prepared = self._prepare(call, started, batch)
            if isinstance(prepared, ToolResult):
                done: asyncio.Future[ToolResult] = batch.loop.create_future()
                done.set_result(prepared)
                slots.append(done)
                continue
            exclusive = prepared.tool.interactive or prepared.tool.sequential
            keys = self._resource_keys(prepared)
            deps = plan.dependencies(exclusive=exclusive, keys=keys)
            task = batch.loop.create_task(self._through(prepared, deps, semaphore))
            batch.tasks.append(task)
            plan.started(task, exclusive=exclusive, keys=keys)
            slots.append(task)
        if batch.cancel_requested:
            for task in batch.tasks:
                task.cancel()
        return list(await asyncio.gather(*slots))

    def _resource_keys(self, prepared: ToolCallRequest) -> list[tuple[str, ResourceMode]]:
        resource = prepared.tool.resource
        if resource is None:
            return []
        if resource.key is not None:
            return [(resource.key, resource.mode)]
        value = prepared.arguments.get(resource.arg or "")
        return [(f"path:{self.workspace.key(value)}", resource.mode)] if isinstance(value, str) else []

    # -- one call --------------------------------------------------------------------------

    def _prepare(self, call: ToolCall, started: float, batch: Batch) -> ToolCallRequest | ToolResult:
        """Find the tool and parse the arguments: what a call needs to enter the chain."""
        if self.events is not None:
            self._emit("started", call.id, call.name, data={"arguments": call.arguments})
        try:
            tool, note = self._index.resolve(call.name, self.gate.promoted)
            arguments = parse_arguments(call.arguments, tool.name)
        except CallRejected as rejected:
            return self._failed(call.id, rejected.error, started)
        return ToolCallRequest(
            call.id, tool.name, arguments, tool, self.session_id, None, batch, started, note, call
        )

    async def _through(
        self,
        request: ToolCallRequest,
        deps: Sequence[asyncio.Future[Any]] = (),
        semaphore: asyncio.Semaphore | None = None,
    ) -> ToolResult:
        """One call through the chain (in a batch, once the calls it waits for are done and a
        slot is free). The one place a call of a cancelled batch is answered, wherever in the
        chain the cancellation reached it; whatever a middleware raises is that call's error."""
        try:
            if semaphore is None:
                result = await self._chain(request)
            else:
                if deps:
                    await asyncio.wait(deps)
                async with semaphore:
                    result = await self._chain(request)
        except asyncio.CancelledError:
            batch: Batch = request.batch
            if not batch.cancel_requested:
                raise
            uncancel_owner(batch)
            result = cancelled(request.id, request.name, "the batch was cancelled")
        except Exception as exc:  # boundary: a middleware's bug is that call's error, not the batch's
            trace = "".join(traceback.format_exception(exc))
            message = f"a middleware failed on the call of {request.name!r}: {describe_exception(exc)}"
            return self._finished(
                error_result(request.id, request.name, "tool_error", message), request.started, trace
            )
        if not isinstance(result, ToolResult) or result.call_id != request.id:
            got = (
                type(result).__name__ if not isinstance(result, ToolResult) else f"one for {result.call_id!r}"
            )
            message = f"a middleware answered the call of {request.name!r} with {got}, not its ToolResult"
            result = error_result(request.id, request.name, "tool_error", message)
        if self.events is not None and result.error is None and "result_id" in result.meta:
            self._emit("spilled", request.id, request.name, data={"result_id": result.meta["result_id"]})
        return self._finished(result, request.started)

    # -- results and events ----------------------------------------------------------------

    def _failed(self, call_id: str, err: ErrorEnvelope, started: float) -> ToolResult:
        return self._finished(refused(call_id, err), started)

    def _finished(self, result: ToolResult, started: float, trace: str | None = None) -> ToolResult:
        if result.error is not None and TRACE in result.meta:
            meta = dict(result.meta)
            trace = trace or meta.pop(TRACE)
            result = replace(result, meta=meta)
        if result.error is not None and not result.duration_s:
            result = replace(result, duration_s=time.perf_counter() - started)
        if self.events is not None:
            err = result.error
            self.events.emit(
                ExecutionEvent(
                    "finished",
                    result.call_id,
                    result.name,
                    outcome=err.type if err is not None else "ok",
                    duration_s=time.perf_counter() - started,
                    message=err.message if err is not None else None,
                    traceback=trace,
                )
            )
        elif trace is not None:
            log.warning("tool %s (%s) failed\n%s", result.name, result.call_id, trace)
        return result

    def _emit(self, kind: EventKind, call_id: str, tool: str, **fields: Any) -> None:
        if self.events is not None:
            self.events.emit(ExecutionEvent(kind, call_id, tool, **fields))
