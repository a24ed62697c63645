"""The Executor: from the model's tool calls to the results it reads.

    calls --resolve, parse--> ToolCallRequest --the middleware chain--> ToolResult

The chain (`middleware`): the user's middleware, then tooldeck's links - validate, the gate
(policy and approvals), the untrusted-content frame, `TruncateResults`, and the run itself
(async / daemon thread / child process, under the deadline, the value shaped into text). The
executor keeps what is not about one call: batching, scheduling, cancellation, events.

`execute(calls)` returns exactly one result per call id, in the model's order, whatever
happens: a malformed call, an unknown tool, a refusal, an exception, a timeout, cancellation.
A duplicated id is answered once (the later call is not run; an event reports it).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
import time
import traceback
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from types import CoroutineType
from typing import Any

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.channel import ToolChannel
from tooldeck._core.config import (
    ApprovalsConfig,
    CheckpointsConfig,
    EffectsConfig,
    ExecutionConfig,
    SandboxConfig,
    ToolSearchConfig,
)
from tooldeck._core.context import Approvals, ToolContext
from tooldeck._core.control_plane import ControlPlane
from tooldeck._core.execution.call_channel import CallChannel
from tooldeck._core.execution.calls import parse_arguments, validate
from tooldeck._core.execution.deadline import Blocked as _Blocked
from tooldeck._core.execution.deadline import Expiry as _Expiry
from tooldeck._core.execution.deadline import Resumed as _Resumed
from tooldeck._core.execution.deadline import TimedOut as _TimedOut
from tooldeck._core.execution.deadline import awaited as _awaited
from tooldeck._core.execution.events import EventKind, EventSink, ExecutionEvent, log
from tooldeck._core.execution.gate import ApprovalSettings, CallGate
from tooldeck._core.execution.isolation import run_in_child
from tooldeck._core.execution.lookup import ToolIndex
from tooldeck._core.execution.middleware import CallNext, Middleware, ToolCallRequest, TruncateResults, chain
from tooldeck._core.execution.nested import ToolCaller
from tooldeck._core.execution.policy import Approver, CallApprovals, ChainPolicy, Grants, Policy
from tooldeck._core.execution.result_text import ResultNotText
from tooldeck._core.execution.results import (
    SpillStore,
    error_result,
    failure_result,
    frame_untrusted,
    is_untrusted,
    shape,
)
from tooldeck._core.execution.runner import CancelToken, HandlerRaised, LazyEvent, run_sync
from tooldeck._core.execution.safety_policy import SafetyPolicy
from tooldeck._core.execution.scheduler import Batch, BatchPlan, ResourceMode
from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ToolError, ToolResult, ValidatedCall
from tooldeck._core.run_state import RunState
from tooldeck._core.tool import Tool
from tooldeck._core.workspace import Workspace
from tooldeck._utils.home import tooldeck_home
from tooldeck._utils.text import describe_exception
from tooldeck.errors import CallRejected

__all__ = ["CancelToken", "Executor", "Promoted", "every_deferred"]

Promoted = Callable[[], Collection[str]]


def every_deferred(loadout: Loadout) -> Promoted:
    """Promotions under which every deferred tool of `loadout` counts as promoted.

    For callers that choose their tools themselves rather than a model that must find them with
    `tool_search` first: a person at the command line, a program calling `deck.call`, an MCP
    client with no session to remember promotions. Every other gate still applies.
    """
    names = frozenset(loadout.deferred_names)
    return lambda: names


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the executor needs to know about a tool on every call, worked out once."""

    is_async: bool
    timeout: float
    direct: bool  # a decorated tool whose validated model can go straight to the handler
    needs_context: bool
    isolated: bool  # runs in a child process, killed at the deadline


def _settled(call: Callable[[], Any]) -> Any:
    """In an isolated child: the handler's value, an async handler run in a loop of its own."""
    value = call()
    if inspect.isawaitable(value):

        async def wait() -> Any:
            return await value

        return asyncio.run(wait())
    return value


class Executor:
    """Runs tool calls against one loadout, under the config it was assembled with.

    Cheap to build: the agent builds one per batch over the current loadout. Approval grants
    outlive it in a `Grants` object handed in by whoever owns the session.
    """

    def __init__(
        self,
        loadout: Loadout,
        *,
        policy: Policy | None = None,
        approver: Approver | None = None,
        events: EventSink | None = None,
        session_id: str | None = None,
        spill_dir: Path | None = None,
        spill: SpillStore | None = None,
        promoted: Promoted | None = None,
        grants: Grants | None = None,
        services: Mapping[type, object] | None = None,
        middleware: Sequence[Middleware] = (),
        workspace: Workspace | None = None,
        home: Path | None = None,
        limits: ExecutionConfig | None = None,
    ) -> None:
        config = loadout.config
        self.loadout = loadout
        self.limits = limits or config.execution
        self.events = events
        if workspace is None:
            # The protected and hidden sets, computed once per loadout.
            plane = loadout.cached_render(("tooldeck.ControlPlane",), lambda: ControlPlane.of(config))
            workspace = Workspace(config.workspace, plane=plane)
        self.workspace = workspace
        self.session_id = session_id
        self.home = home = home or tooldeck_home(config.home, base_dir=config.base_dir)
        # A caller making many executors (the deck's direct calls) passes one store, so a cut
        # result stays readable by a later call.
        self.spill = spill or SpillStore(spill_dir or home / "spill", session=session_id)
        grants = grants if grants is not None else Grants()
        self.services: dict[type, object] = {
            **(services or {}),
            Workspace: self.workspace,
            SpillStore: self.spill,
            # The config reaches tools one section at a time, never whole (see tooldeck._core.context).
            type(self.limits): self.limits,
            SandboxConfig: config.sandbox,
            EffectsConfig: config.effects,
            CheckpointsConfig: config.checkpoints,
            ApprovalsConfig: config.approvals,
            ToolSearchConfig: config.tool_search,
            # The loadout the call runs against (tool_search searches its deferred tools).
            Loadout: loadout,
        }
        normalise = self.limits.normalize_names
        # Built once per loadout (the agent makes an executor per batch over the same loadout).
        self._index: ToolIndex = loadout.cached_render(
            ("tooldeck._core.execution.ToolIndex", normalise), lambda: _index(loadout, normalise)
        )
        # The built-in safety policy always applies; a policy given here adds to it.
        safety = SafetyPolicy(config)
        approvals = config.approvals
        audit = config.resolve_path(approvals.audit_log) if approvals.audit_log else home / "approvals.jsonl"
        self.gate = CallGate(
            deferred=frozenset(loadout.deferred_names),
            promoted=promoted or frozenset,
            skills_allowed=loadout.skills_allowed,
            policy=safety if policy is None else ChainPolicy(safety, policy),
            custom_policy=policy is not None,
            approver=approver,
            grants=grants,
            emit=self._emit,
            settings=ApprovalSettings(
                audit_log=audit,
                grants_file=home / "grants.jsonl",
                workspace=self.workspace.root,
                timeout_s=approvals.timeout_s,
                session_id=session_id,
            ),
        )
        self._plans: dict[str, _Plan] = {}
        self._batches: set[Batch] = set()
        self.middleware = tuple(middleware)
        # What a running tool asks when it needs approval mid-call (an ACP agent's requests);
        # a caller that cannot be asked mid-call offers its own (e.g. the base class: always no).
        self.services.setdefault(
            Approvals,
            CallApprovals(
                mode=config.approvals.mode,
                approver=approver,
                grants=grants,
                tools=self._index.tools.get,
                settle=partial(self.gate.settle, approval_lock=_lock_maker()),
            ),
        )
        # How a running tool talks back (progress, logs, questions); serve and the agent offer theirs.
        self.services.setdefault(ToolChannel, CallChannel(lambda: self.gate.approver, self._emit))
        self.truncate = TruncateResults(self.limits.max_result_chars, self.spill)
        steps: list[Middleware] = [_Step(self._checking)]
        if any(is_untrusted(t) for t in self._index.tools.values()):
            steps.append(_Step(self._framing))  # a loadout without web or MCP tools needs no frame
        steps.append(self.truncate)
        if not all(t.read_only for t in self._index.tools.values()):
            from tooldeck._core.execution.write_budget import WriteBudgeting

            steps.append(WriteBudgeting(str(self.workspace.root), config.sandbox.limits.disk_mb))
        if config.checkpoints.enabled and not all(t.read_only for t in self._index.tools.values()):
            from tooldeck._core.checkpoints import store_for
            from tooldeck._core.execution.checkpointing import Checkpointing

            store = store_for(home, self.workspace.root, config.checkpoints)
            self.services.setdefault(type(store), store)
            asks = self.services[Approvals]
            steps.append(Checkpointing(store, self.workspace, asks if isinstance(asks, Approvals) else None))
        self._chain: CallNext = chain([*self.middleware, *steps], self._run)

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
            return [self._finished(self._cancelled(c.id, c.name, why), time.perf_counter()) for c in unique]
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
        prepared: ToolCallRequest,
        deps: list[asyncio.Future[Any]],
        semaphore: asyncio.Semaphore,
        batch: Batch,
        started: float,
    ) -> ToolResult:
        try:
            if deps:
                await asyncio.wait(deps)
            async with semaphore:
                return await self._through(prepared)
        except asyncio.CancelledError:  # our own task: cancelled by the batch, never by others
            return self._finished(
                self._cancelled(prepared.id, prepared.name, "the batch was cancelled"), started
            )

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

    async def _through(self, request: ToolCallRequest) -> ToolResult:
        """One call through the chain; whatever a middleware raises is that call's error result."""
        try:
            result = await self._chain(request)
        except asyncio.CancelledError:
            batch: Batch = request.batch
            if not batch.cancel_requested:
                raise
            task = asyncio.current_task()
            if task is not None and task is batch.owner:
                task.uncancel()
            result = self._cancelled(request.id, request.name, "the batch was cancelled")
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

    def _plan(self, tool: Tool) -> _Plan:
        plan = self._plans.get(tool.name)
        if plan is None:
            plan = _Plan(
                is_async=tool.is_async,
                timeout=self.limits.timeout_for(tool.timeout),
                direct=tool.call_style == "kwargs"
                and tool.arg_model is not None
                and tool.handler is not None,
                needs_context=tool.context_param is not None,
                isolated=tool.isolation == "process",
            )
            self._plans[tool.name] = plan
        return plan

    # -- the links of the chain ------------------------------------------------------------

    # Each link is made once, around the next one (one coroutine frame per link and call).

    def _checking(self, call_next: CallNext) -> CallNext:
        """Validation, then the policy and approvals: one link (one frame a call), since nothing
        may run between them."""
        emit = self._emit if self.events is not None else None
        quick = self.gate.quick

        async def checked(request: ToolCallRequest) -> ToolResult:
            vc = request.validated
            if vc is None:
                call = request.raw  # None once a middleware replaced the arguments
                if call is None:
                    call = ToolCall(request.id, request.name, request.arguments)
                try:
                    vc = request.validated = validate(call, request.tool, request.arguments, request.note)
                except CallRejected as rejected:
                    return self._refused(request.id, rejected.error)
                if emit is not None:
                    emit("validated", request.id, request.name, data={"arguments": vc.arguments})
            verdict = quick(vc)
            if verdict is not True:
                refusal = (
                    verdict if isinstance(verdict, ErrorEnvelope) else await self._decide(vc, request.batch)
                )
                if refusal is not None:
                    return self._refused(request.id, refusal)
            return await call_next(request)

        return checked

    def _framing(self, call_next: CallNext) -> CallNext:
        """Output of tools that bring in outside text (web, MCP) framed as untrusted data."""

        async def framed(request: ToolCallRequest) -> ToolResult:
            result = await call_next(request)
            if result.error is None and is_untrusted(request.tool):
                return result.replace(content=frame_untrusted(request.name, result.content))
            return result

        return framed

    async def _run(self, request: ToolCallRequest) -> ToolResult:
        """The last link: run the handler under its deadline and shape its value into text."""
        vc = request.validated
        assert vc is not None  # the validation link ran
        batch: Batch = request.batch
        started = request.started
        tool = vc.tool
        plan = self._plan(tool)
        cancel_event = LazyEvent() if plan.needs_context else None
        context = self._context(vc, batch, cancel_event) if plan.needs_context else None
        try:
            value = await self._invoke(vc, plan, context, cancel_event, batch)
        except _TimedOut:
            return self._refused(vc.id, _timeout_envelope(tool, plan))
        except _Blocked as blocked:
            message = (
                f"tool {tool.name!r} blocked the event loop for {blocked.seconds:.1f} s, past its "
                f"{plan.timeout:g} s timeout (an async handler called blocking code; make it a plain "
                "function, or give it isolation='process'); its work completed but its result was not used"
            )
            return self._refused(vc.id, ErrorEnvelope("timeout", message, tool.name, False))
        except ToolError as exc:
            return failure_result(vc.id, tool.name, exc, time.perf_counter() - started)
        except asyncio.CancelledError:
            if not batch.cancel_requested:
                raise
            task = asyncio.current_task()
            if task is not None and task is batch.owner:
                task.uncancel()
            return self._cancelled(vc.id, tool.name, "the batch was cancelled")
        except (
            BaseException
        ) as exc:  # boundary: whatever a tool raises (even sys.exit) is a tool_error result
            # Cancellation of our own task was handled above; a KeyboardInterrupt or SystemExit
            # that gets here came from the tool's code, not from the user (a real Ctrl-C reaches
            # the event loop as a cancellation).
            return self._crashed(vc, exc)
        try:
            shaped = shape(value, tool)
        except Exception as exc:  # boundary: a returned value's own str() or JSON form may raise anything
            why = str(exc) if isinstance(exc, ResultNotText) else describe_exception(exc)
            message = (
                f"tool {tool.name!r} ran, but returned a value that cannot be turned into text "
                f"({type(value).__name__}): {why}"
            )
            return self._refused(vc.id, ErrorEnvelope("tool_error", message, tool.name, False))
        content = f"[note: {vc.note}]\n{shaped.content}" if vc.note else shaped.content
        meta = shaped.meta or {}
        duration = time.perf_counter() - started
        return ToolResult(
            vc.id,
            tool.name,
            content,
            None,
            shaped.update,
            shaped.interrupt,
            duration,
            meta,
            shaped.blocks,
            shaped.structured,
        )

    async def _decide(self, vc: ValidatedCall, batch: Batch) -> ErrorEnvelope | None:
        """The policy and approval step; a cancelled batch or a failing policy refuses the call."""
        try:
            return await self.gate.decide(vc, batch.approval_lock)
        except asyncio.CancelledError:
            if not batch.cancel_requested:
                raise
            task = asyncio.current_task()
            if task is not None and task is batch.owner:
                task.uncancel()
            return ErrorEnvelope(
                "cancelled", "the batch was cancelled while the call awaited approval", vc.name
            )
        except Exception as exc:  # boundary: a policy or approver bug must fail closed, not crash the run
            log.warning("policy failed for %s (%s)", vc.name, vc.id, exc_info=True)
            return ErrorEnvelope(
                "denied", f"the policy check failed ({describe_exception(exc)}); not run", vc.name
            )

    async def _invoke(
        self,
        vc: ValidatedCall,
        plan: _Plan,
        context: ToolContext | None,
        cancel_event: threading.Event | None,
        batch: Batch,
    ) -> Any:
        """Call the handler under the tool's deadline; a deadline that passes raises _TimedOut."""
        task = batch.owner or asyncio.current_task()
        assert task is not None
        expiry = _Expiry(task)
        loop = batch.loop
        began = loop.time()
        resumed: _Resumed | None = None
        if plan.is_async and not plan.isolated:
            # Its first step runs now; one that finishes without suspending (it awaited nothing
            # that waits) cannot be timed out, so it needs no deadline timer: only the check below.
            coro = self._call(vc, plan, context)
            if type(coro) is not CoroutineType:
                coro = _awaited(coro)  # an awaitable of another kind (or not one: a TypeError)
            try:
                step = coro.send(None)
            except StopIteration as done:
                if loop.time() - began > plan.timeout:
                    raise _Blocked(loop.time() - began) from None
                return done.value
            resumed = _Resumed(coro, step)
        timer = loop.call_at(began + plan.timeout, expiry.fire)
        try:
            if resumed is not None:
                value = await resumed
                if not expiry.fired and loop.time() - began > plan.timeout:
                    # The handler blocked the event loop past its deadline: the timer could not fire.
                    raise _Blocked(loop.time() - began)
            elif plan.isolated:
                cancel_event = cancel_event or threading.Event()
                in_child = partial(_settled, partial(self._call, vc, plan, context))
                value = await run_sync(partial(run_in_child, in_child, cancel_event), cancel_event)
            else:
                value = await run_sync(partial(self._call, vc, plan, context), cancel_event)
        except asyncio.CancelledError:
            if cancel_event is not None:
                cancel_event.set()
            if expiry.fired and not batch.cancel_requested:
                task.uncancel()
                raise _TimedOut from None
            raise
        finally:
            timer.cancel()
        if expiry.fired:
            task.uncancel()  # the handler swallowed our cancellation and returned anyway
        return value

    @staticmethod
    def _call(vc: ValidatedCall, plan: _Plan, context: ToolContext | None) -> Any:
        tool = vc.tool
        if plan.direct and vc.model is not None:
            # Tool.call would validate the arguments into the model again; it was done when the call was validated.
            kwargs = dict(vc.model.__dict__)  # a pydantic model keeps its field values there
            if tool.context_param is not None:
                kwargs[tool.context_param] = context
            assert tool.handler is not None
            return tool.handler(**kwargs)
        return tool.call(vc.arguments, context)

    def _context(self, vc: ValidatedCall, batch: Batch, cancel_event: threading.Event | None) -> ToolContext:
        cancelled = cancel_event or LazyEvent()
        return ToolContext(
            call_id=vc.id,
            tool_name=vc.name,
            workspace=self.workspace.root,
            home=self.home,
            session_id=self.session_id,
            state=batch.state,
            cancelled=cancelled,
            services=_CallServices(self, batch, vc.id, cancelled),
            loop=batch.loop,
        )

    # -- results and events ----------------------------------------------------------------

    def _failed(self, call_id: str, err: ErrorEnvelope, started: float) -> ToolResult:
        result = error_result(
            call_id, err.tool, err.type, err.message, retryable=err.retryable, output=err.output
        )
        return self._finished(result, started)

    def _cancelled(self, call_id: str, tool: str, why: str) -> ToolResult:
        return error_result(call_id, tool, "cancelled", f"{why}; the call did not complete")

    def _crashed(self, vc: ValidatedCall, exc: BaseException) -> ToolResult:
        original = exc.original if isinstance(exc, HandlerRaised) else exc
        trace = "".join(traceback.format_exception(original))
        message = f"tool {vc.name!r} failed: {describe_exception(original)}"
        result = error_result(vc.id, vc.name, "tool_error", message)
        # The traceback goes with the result to the events (or the log) once it leaves the chain.
        return result.replace(meta={_TRACE: trace})

    def _refused(self, call_id: str, err: ErrorEnvelope) -> ToolResult:
        """A link's error result (events and timing are added when it leaves the chain)."""
        return error_result(
            call_id, err.tool, err.type, err.message, retryable=err.retryable, output=err.output
        )

    def _finished(self, result: ToolResult, started: float, trace: str | None = None) -> ToolResult:
        if result.error is not None and _TRACE in result.meta:
            meta = dict(result.meta)
            trace = trace or meta.pop(_TRACE)
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


def _lock_maker() -> Callable[[], asyncio.Lock]:
    """One lock made on first use (inside the loop that asks): mid-call questions one at a time."""
    made: list[asyncio.Lock] = []

    def get() -> asyncio.Lock:
        if not made:
            made.append(asyncio.Lock())
        return made[0]

    return get


class _CallServices(Mapping[type, object]):
    """The executor's services as one call sees them, with a `ToolCaller` of its own.

    A view rather than a copy, and the caller is made only when the handler asks for it: most
    calls never do, and both cost time on every call.
    """

    __slots__ = ("_batch", "_call_id", "_caller", "_cancel", "_executor")

    def __init__(self, executor: Executor, batch: Batch, call_id: str, cancel: threading.Event) -> None:
        self._executor = executor
        self._batch = batch
        self._call_id = call_id
        self._cancel = cancel
        self._caller: ToolCaller | None = None

    def __getitem__(self, kind: type) -> object:
        if kind is not ToolCaller:
            return self._executor.services[kind]
        caller = self._caller
        if caller is None:
            with _MAKING_CALLER:  # a handler's threads asking at once still share one caller
                caller = self._caller
                if caller is None:
                    batch = self._batch
                    caller = self._caller = ToolCaller(
                        self._executor,
                        batch.loop,
                        state=batch.state,
                        parent_id=self._call_id,
                        cancel=self._cancel,
                    )
        return caller

    def get(self, kind: type, default: Any = None) -> Any:
        if kind is ToolCaller:
            return self[kind]
        return self._executor.services.get(kind, default)

    def __contains__(self, kind: object) -> bool:
        return kind is ToolCaller or kind in self._executor.services

    def __iter__(self) -> Iterator[type]:
        yield from (k for k in self._executor.services if k is not ToolCaller)
        yield ToolCaller

    def __len__(self) -> int:
        return len(self._executor.services) + (ToolCaller not in self._executor.services)


_MAKING_CALLER = threading.Lock()
# Where a crashed call's traceback travels from the run link to `_finished` (never shown).
_TRACE = "tooldeck.traceback"


class _Step:
    """One of the executor's own links, as a middleware of the chain: `bind` makes it around
    the next link once (see `middleware.chain`)."""

    __slots__ = ("bind",)

    def __init__(self, bind: Callable[[CallNext], CallNext]) -> None:
        self.bind = bind

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await self.bind(call_next)(call)


def _timeout_envelope(tool: Tool, plan: _Plan) -> ErrorEnvelope:
    """Say truthfully what a timeout did: an async handler is cancelled; a sync handler's thread
    cannot be stopped, so its work may still complete. A retry is offered only for tools that
    say a repeat is safe (read-only or idempotent)."""
    if plan.isolated:
        what = "was killed at the deadline, with every process it started"
    elif plan.is_async:
        what = "was cancelled at the deadline"
    else:
        what = (
            "was abandoned at the deadline: its thread could not be stopped and its work may still "
            "complete (child processes it started through tooldeck were killed)"
        )
    message = f"tool {tool.name!r} did not finish within {plan.timeout:g} s and {what}"
    return ErrorEnvelope("timeout", message, tool.name, bool(tool.read_only or tool.idempotent))


def _index(loadout: Loadout, normalise: bool) -> ToolIndex:
    from tooldeck._core.execution.read_result import read_result

    tools = {t.name: t for t in (*loadout.deferred, *loadout.exposed)}
    tools.setdefault(read_result.name, read_result)  # truncation markers point at it
    hidden = {f.name: (f.gate, f.reason) for f in loadout.hidden if f.name not in tools}
    # read_result is reachable for the truncation markers that point at it, but offered (listed
    # to a caller naming an unknown tool) only when the loadout exposes it.
    offered = [t.name for t in loadout.exposed]
    return ToolIndex(
        tools, hidden=hidden, normalise=normalise, offered=offered, deferred=loadout.deferred_names
    )
