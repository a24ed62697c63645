"""`run`, the last link of the call path: the handler run under its deadline, its value shaped.

An async handler runs in the caller's task (its first step at once), a sync one in a daemon
thread, an `isolation='process'` one in a child process killed at the deadline. A deadline
that passes is a `timeout` result saying truthfully what happened to the work; whatever the
handler raises is a `tool_error` result; a value that cannot become text is one too. A
cancelled batch is not handled here: the cancellation reaches the executor, which answers it.
Arguments a middleware placed inside `validate` replaced are validated again here (not judged
by the policy again: a middleware placed after `approvals` is trusted with what it changes).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import CoroutineType
from typing import Any

from tooldeck._core.config import ExecutionConfig
from tooldeck._core.context import ToolContext
from tooldeck._core.execution.deadline import Blocked, Expiry, Resumed, TimedOut, awaited
from tooldeck._core.execution.isolation import run_in_child
from tooldeck._core.execution.links import awaiting, refused, validated_call
from tooldeck._core.execution.middleware import CallNext, Link, ToolCallRequest
from tooldeck._core.execution.nested import Executes, ToolCaller
from tooldeck._core.execution.result_text import ResultNotText
from tooldeck._core.execution.results import error_result, failure_result, shape
from tooldeck._core.execution.runner import HandlerRaised, LazyEvent, run_sync
from tooldeck._core.execution.scheduler import Batch
from tooldeck._core.execution.types import ErrorEnvelope, ToolError, ToolResult, ValidatedCall
from tooldeck._core.tool import Tool
from tooldeck._utils.text import describe_exception
from tooldeck.errors import ApprovalPending

# Where a crashed call's traceback travels from the run link to the executor (never shown).
TRACE = "tooldeck.traceback"


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the run link needs to know about a tool on every call, worked out once."""

    is_async: bool
    timeout: float
    direct: bool  # a decorated tool whose validated model can go straight to the handler
    needs_context: bool
    isolated: bool  # runs in a child process, killed at the deadline


@dataclass(frozen=True, slots=True)
class CallSite:
    """Where the tools run: what their context says, and the services they are offered."""

    workspace: Path
    home: Path
    session_id: str | None
    services: dict[type, object]
    executor: Executes  # what a handler's own tool calls go through


class Run(Link):
    """`run` (see the module docstring)."""

    __slots__ = ("_plans", "limits", "site")
    name = "run"

    def __init__(self, limits: ExecutionConfig, site: CallSite) -> None:
        self.limits = limits
        self.site = site
        self._plans: dict[str, _Plan] = {}

    def bind(self, call_next: CallNext) -> CallNext:
        return self.run  # the last link: nothing comes after it

    async def run(self, request: ToolCallRequest) -> ToolResult:
        vc = request.validated
        if vc is None:  # a middleware placed after `validate` replaced the arguments
            checked = validated_call(request)
            if isinstance(checked, ToolResult):
                return checked
            vc = checked.validated
            assert vc is not None
        batch: Batch = request.batch
        tool = vc.tool
        plan = self._plan(tool)
        cancel_event = LazyEvent() if plan.needs_context else None
        context = self._context(request, vc, batch, cancel_event) if plan.needs_context else None
        try:
            value = await self._invoke(vc, plan, context, cancel_event, batch)
        except TimedOut:
            batch.settle()
            return refused(vc.id, _timeout_envelope(tool, plan))
        except Blocked as blocked:
            batch.settle()
            message = (
                f"tool {tool.name!r} blocked the event loop for {blocked.seconds:.1f} s, past its "
                f"{plan.timeout:g} s timeout (an async handler called blocking code; make it a plain "
                "function, or give it isolation='process'); its work completed but its result was not used"
            )
            return refused(vc.id, ErrorEnvelope("timeout", message, tool.name, False))
        except ToolError as exc:
            batch.settle()
            return failure_result(vc.id, tool.name, exc, time.perf_counter() - request.started)
        except asyncio.CancelledError:
            raise  # the batch's: answered by the executor
        except ApprovalPending as waiting:  # the tool stopped at a question decided later
            batch.settle()
            return awaiting(vc, waiting.pending)
        except (
            BaseException
        ) as exc:  # boundary: whatever a tool raises (even sys.exit) is a tool_error result
            # A KeyboardInterrupt or SystemExit that gets here came from the tool's code, not from
            # the user (a real Ctrl-C reaches the event loop as a cancellation).
            batch.settle()
            return _crashed(vc, exc)
        batch.settle()  # the tool is done: what follows is not cancelled with the batch
        return _shaped(value, vc, request.started)

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

    async def _invoke(
        self,
        vc: ValidatedCall,
        plan: _Plan,
        context: ToolContext | None,
        cancel_event: threading.Event | None,
        batch: Batch,
    ) -> Any:
        """Call the handler under the tool's deadline; a deadline that passes raises TimedOut."""
        task = batch.owner or asyncio.current_task()
        assert task is not None
        expiry = Expiry(task)
        loop = batch.loop
        began = loop.time()
        resumed: Resumed | None = None
        if plan.is_async and not plan.isolated:
            # Its first step runs now; one that finishes without suspending (it awaited nothing
            # that waits) cannot be timed out, so it needs no deadline timer: only the check below.
            coro = _call(vc, plan, context)
            if type(coro) is not CoroutineType:
                coro = awaited(coro)  # an awaitable of another kind (or not one: a TypeError)
            try:
                step = coro.send(None)
            except StopIteration as done:
                if loop.time() - began > plan.timeout:
                    raise Blocked(loop.time() - began) from None
                return done.value
            resumed = Resumed(coro, step)
        timer = loop.call_at(began + plan.timeout, expiry.fire)
        try:
            if resumed is not None:
                value = await resumed
                if not expiry.fired and loop.time() - began > plan.timeout:
                    # The handler blocked the event loop past its deadline: the timer could not fire.
                    raise Blocked(loop.time() - began)
            elif plan.isolated:
                cancel_event = cancel_event or threading.Event()
                in_child = partial(_settled, partial(_call, vc, plan, context))
                value = await run_sync(partial(run_in_child, in_child, cancel_event), cancel_event)
            else:
                value = await run_sync(partial(_call, vc, plan, context), cancel_event)
        except asyncio.CancelledError:
            if cancel_event is not None:
                cancel_event.set()
            if expiry.fired and not batch.cancel_requested:
                task.uncancel()
                raise TimedOut from None
            raise
        finally:
            timer.cancel()
        if expiry.fired:
            task.uncancel()  # the handler swallowed our cancellation and returned anyway
        return value

    def _context(
        self, request: ToolCallRequest, vc: ValidatedCall, batch: Batch, cancel_event: threading.Event | None
    ) -> ToolContext:
        cancelled = cancel_event or LazyEvent()
        site = self.site
        return ToolContext(
            call_id=vc.id,
            tool_name=vc.name,
            workspace=site.workspace,
            home=site.home,
            session_id=site.session_id,
            state=batch.state,
            cancelled=cancelled,
            services=_CallServices(site, request.services, batch, vc.id, cancelled),
            loop=batch.loop,
        )


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


def _settled(call: Callable[[], Any]) -> Any:
    """In an isolated child: the handler's value, an async handler run in a loop of its own."""
    value = call()
    if inspect.isawaitable(value):

        async def wait() -> Any:
            return await value

        return asyncio.run(wait())
    return value


def _shaped(value: Any, vc: ValidatedCall, started: float) -> ToolResult:
    """The handler's value as the result the model reads."""
    tool = vc.tool
    try:
        shaped = shape(value, tool)
    except Exception as exc:  # boundary: a returned value's own str() or JSON form may raise anything
        why = str(exc) if isinstance(exc, ResultNotText) else describe_exception(exc)
        message = (
            f"tool {tool.name!r} ran, but returned a value that cannot be turned into text "
            f"({type(value).__name__}): {why}"
        )
        return refused(vc.id, ErrorEnvelope("tool_error", message, tool.name, False))
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


def _crashed(vc: ValidatedCall, exc: BaseException) -> ToolResult:
    original = exc.original if isinstance(exc, HandlerRaised) else exc
    trace = "".join(traceback.format_exception(original))
    message = f"tool {vc.name!r} failed: {describe_exception(original)}"
    result = error_result(vc.id, vc.name, "tool_error", message)
    # The traceback goes with the result to the events (or the log) once it leaves the chain.
    return result.replace(meta={TRACE: trace})


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


class _CallServices(Mapping[type, object]):
    """The services as one call sees them: its own (offered by a link) over the session's, and
    a `ToolCaller` of its own.

    A view rather than a copy, and the caller is made only when the handler asks for it: most
    calls never do, and both cost time on every call.
    """

    __slots__ = ("_batch", "_call_id", "_caller", "_cancel", "_own", "_site")

    def __init__(
        self,
        site: CallSite,
        own: Mapping[type, object] | None,
        batch: Batch,
        call_id: str,
        cancel: threading.Event,
    ) -> None:
        self._site = site
        self._own = own
        self._batch = batch
        self._call_id = call_id
        self._cancel = cancel
        self._caller: ToolCaller | None = None

    def __getitem__(self, kind: type) -> object:
        if kind is not ToolCaller:
            own = self._own
            if own is not None and kind in own:
                return own[kind]
            return self._site.services[kind]
        caller = self._caller
        if caller is None:
            with _MAKING_CALLER:  # a handler's threads asking at once still share one caller
                caller = self._caller
                if caller is None:
                    batch = self._batch
                    caller = self._caller = ToolCaller(
                        self._site.executor,
                        batch.loop,
                        state=batch.state,
                        parent_id=self._call_id,
                        cancel=self._cancel,
                    )
        return caller

    def get(self, kind: type, default: Any = None) -> Any:
        if kind is ToolCaller or (self._own is not None and kind in self._own):
            return self[kind]
        return self._site.services.get(kind, default)

    def __contains__(self, kind: object) -> bool:
        return (
            kind is ToolCaller or kind in self._site.services or (self._own is not None and kind in self._own)
        )

    def _kinds(self) -> dict[type, None]:
        kinds = dict.fromkeys(self._site.services)
        kinds.update(dict.fromkeys(self._own or ()))
        kinds.pop(ToolCaller, None)
        return kinds

    def __iter__(self) -> Iterator[type]:
        yield from self._kinds()
        yield ToolCaller

    def __len__(self) -> int:
        return len(self._kinds()) + 1


_MAKING_CALLER = threading.Lock()

__all__ = ["TRACE", "CallSite", "Run"]
