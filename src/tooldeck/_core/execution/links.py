"""tooldeck's own links of the call path, each a `Link` over the one `on_call` protocol.

    trace -> (a user's middleware) -> validate -> approvals -> effects -> frame
        -> truncate -> budget -> checkpoint -> run

Here: `validate`, `approvals`, `effects` and `frame`, and `arrange`, which puts a user's
middleware where it was placed among them. The others live with what they wrap: `trace` in
`tooldeck.tracing`, `truncate` (`TruncateResults`) in `middleware`, `checkpoint` in
`checkpointing`, `run` in `run_link`. A link absent from a session (no tracing, no tool that
brings in outside text) still names a place in the order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence

from tooldeck._core.config import EffectsConfig
from tooldeck._core.execution.calls import validate
from tooldeck._core.execution.gate import CallGate
from tooldeck._core.execution.middleware import CallNext, Link, Middleware, Placed, ToolCallRequest
from tooldeck._core.execution.results import error_result, frame_untrusted, is_untrusted
from tooldeck._core.execution.scheduler import Batch
from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ToolResult, ValidatedCall
from tooldeck._core.link_names import LINKS
from tooldeck._utils.text import describe_exception
from tooldeck.errors import ApprovalPending, CallRejected

log = logging.getLogger("tooldeck.execution")
Emit = Callable[..., None]


def refused(call_id: str, err: ErrorEnvelope) -> ToolResult:
    """A link's error result (events and timing are added when it leaves the chain)."""
    return error_result(call_id, err.tool, err.type, err.message, retryable=err.retryable, output=err.output)


def awaiting(vc: ValidatedCall, pending: Mapping[str, object]) -> ToolResult:
    """The result of a call left waiting for a decision: not run, not refused; its `interrupt`
    (kind `approval`) carries the signed record the run stops with."""
    content = f"awaiting approval: {pending.get('reason')}"
    interrupt = {"kind": "approval", "pending": [dict(pending)]}
    return ToolResult(call_id=vc.id, name=vc.tool.name, content=content, interrupt=interrupt)


def validated_call(call: ToolCallRequest, emit: Emit | None = None) -> ToolCallRequest | ToolResult:
    """`call` carrying its validated, coerced arguments, or the result refusing them. A call
    validated already passes as it is; one whose arguments a middleware replaced since is
    validated again."""
    if call.validated is not None:
        return call
    raw = call.raw if call.raw is not None else ToolCall(call.id, call.name, call.arguments)
    try:
        checked = validate(raw, call.tool, call.arguments, call.note)
    except CallRejected as rejected:
        return refused(call.id, rejected.error)
    if emit is not None:
        emit("validated", call.id, call.name, data={"arguments": checked.arguments})
    return call.validated_as(checked)


class Validate(Link):
    """`validate`: the arguments checked against the schema the model saw (and the tool's own
    model) and coerced (`"2"` -> `2`); further in, `call.arguments` are the validated ones."""

    __slots__ = ("emit",)
    name = "validate"

    def __init__(self, emit: Emit | None = None) -> None:
        self.emit = emit

    def bind(self, call_next: CallNext) -> CallNext:
        emit = self.emit

        async def validated(call: ToolCallRequest) -> ToolResult:
            if call.validated is None:
                checked = validated_call(call, emit)
                if isinstance(checked, ToolResult):
                    return checked
                call = checked
            return await call_next(call)

        return validated


class Approvals(Link):
    """`approvals`: the deferred and skill gates, the policy, approvals and grants, every
    decision written to the audit log (see `gate`); a refused call never reaches further in."""

    __slots__ = ("emit", "gate")
    name = "approvals"

    def __init__(self, gate: CallGate, emit: Emit | None = None) -> None:
        self.gate = gate
        # Given when this link validates too: with nothing placed between `validate` and it,
        # one frame a call does both (see `compose`).
        self.emit = emit

    def bind(self, call_next: CallNext) -> CallNext:
        quick, decide, emit = self.gate.quick, self.decide, self.emit

        async def approved(call: ToolCallRequest) -> ToolResult:
            vc = call.validated
            if vc is None:  # not validated here yet, or a middleware replaced the arguments since
                checked = validated_call(call, emit)
                if isinstance(checked, ToolResult):
                    return checked
                call, vc = checked, checked.validated
                assert vc is not None
            verdict = quick(vc)
            if verdict is not True:
                if isinstance(verdict, ErrorEnvelope):
                    return refused(call.id, verdict)
                refusal = await decide(vc, call.batch)
                if isinstance(refusal, ToolResult):
                    return refusal
                if refusal is not None:
                    return refused(call.id, refusal)
            return await call_next(call)

        return approved

    async def decide(self, vc: ValidatedCall, batch: Batch) -> ErrorEnvelope | ToolResult | None:
        try:
            return await self.gate.decide(vc, batch.approval_lock)
        except CallRejected as rejected:
            return rejected.error
        except ApprovalPending as waiting:
            return awaiting(vc, waiting.pending)
        except Exception as exc:  # boundary: a policy or approver bug must fail closed, not crash the run
            log.warning("policy failed for %s (%s)", vc.name, vc.id, exc_info=True)
            message = f"the policy check failed ({describe_exception(exc)}); not run"
            return ErrorEnvelope("denied", message, vc.name)


class Effects(Link):
    """`effects`: a call of a tool that runs commands or code is offered the bounds its effects
    may reach without asking (config `effects:`, the `EffectsConfig` service); what goes past
    them is held for approval by the tool. A middleware after this link may offer narrower ones
    (`call.offering(EffectsConfig, ...)`)."""

    __slots__ = ("bounds",)
    name = "effects"

    def __init__(self, bounds: EffectsConfig) -> None:
        self.bounds = bounds

    def bind(self, call_next: CallNext) -> CallNext:
        bounds = self.bounds

        async def bounded(call: ToolCallRequest) -> ToolResult:
            if not call.tool.runs_shell:
                return await call_next(call)
            return await call_next(call.offering(EffectsConfig, bounds))

        return bounded


class Frame(Link):
    """`frame`: the output of tools that bring in outside text (web, MCP) framed as untrusted
    data, so the model reads it as data, not instructions."""

    __slots__ = ()
    name = "frame"

    def bind(self, call_next: CallNext) -> CallNext:
        async def framed(call: ToolCallRequest) -> ToolResult:
            result = await call_next(call)
            if result.error is None and is_untrusted(call.tool):
                return result.replace(content=frame_untrusted(call.name, result.content))
            return result

        return framed


def arrange(links: Mapping[str, Middleware], placed: Sequence[Placed]) -> list[Middleware]:
    """The chain in order, `run` excepted (the executor's last): tooldeck's `links` by name
    (those present), each user middleware where it was placed, in the order given."""
    out: list[Middleware] = []
    for name in LINKS:
        if name == "validate":
            out += [p.middleware for p in placed if p.before is None and p.after is None]
        out += [p.middleware for p in placed if p.before == name]
        link = links.get(name)
        if link is not None and name != "run":
            out.append(link)
        out += [p.middleware for p in placed if p.after == name]
    return out


def cancelled(call_id: str, tool: str, why: str) -> ToolResult:
    return error_result(call_id, tool, "cancelled", f"{why}; the call did not complete")


def uncancel_owner(batch: Batch) -> None:
    """A cancelled lone call ran in its caller's task: that task is not itself cancelled."""
    task = asyncio.current_task()
    if task is not None and task is batch.owner:
        task.uncancel()


__all__ = [
    "Approvals",
    "Effects",
    "Frame",
    "Validate",
    "arrange",
    "cancelled",
    "refused",
    "uncancel_owner",
    "validated_call",
]
