"""What an executor runs calls with, worked out once from the loadout and its session.

`compose` reads the config sections the call path uses (execution limits, approvals, effects,
checkpoints, and the sections offered to tools), works out the home, the audit log and the
grants files, the workspace and the spill store, builds the gate and the services, and
decides which of tooldeck's links this loadout needs (`frame` only with tools that bring in
outside text, `effects` only with tools that run commands, `budget` and `checkpoint` only when
something can change files, `trace` only when the application traces), with a user's middleware placed
among them (`links.arrange`). The executor keeps scheduling, batching and cancellation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypedDict, Unpack

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.channel import ToolChannel
from tooldeck._core.config import (
    ApprovalsConfig,
    CheckpointsConfig,
    CoreConfig,
    EffectsConfig,
    ExecutionConfig,
    SandboxConfig,
    ToolSearchConfig,
)
from tooldeck._core.context import Approvals as AsksApproval
from tooldeck._core.control_plane import ControlPlane
from tooldeck._core.execution.call_channel import CallChannel
from tooldeck._core.execution.events import EventSink, ExecutionEvent
from tooldeck._core.execution.gate import ApprovalSettings, CallGate
from tooldeck._core.execution.links import Approvals, Effects, Frame, Validate, arrange
from tooldeck._core.execution.lookup import ToolIndex
from tooldeck._core.execution.middleware import Middleware, Placed, TruncateResults, placed_middleware
from tooldeck._core.execution.policy import Approver, CallApprovals, ChainPolicy, Grants, Policy
from tooldeck._core.execution.results import SpillStore, is_untrusted
from tooldeck._core.execution.safety_policy import SafetyPolicy
from tooldeck._core.workspace import Workspace
from tooldeck._utils.home import tooldeck_home

Promoted = Callable[[], Collection[str]]


@dataclass(slots=True)
class CallPath:
    """See the module docstring."""

    loadout: Loadout
    limits: ExecutionConfig
    workspace: Workspace
    home: Path
    spill: SpillStore
    session_id: str | None
    events: EventSink | None
    index: ToolIndex
    gate: CallGate
    services: dict[type, object]
    middleware: tuple[Middleware, ...]  # the user's, as given
    links: list[Middleware]  # the whole chain but `run`, in order
    truncate: TruncateResults


class CallOptions(TypedDict, total=False):
    """What an executor is built with besides its loadout (all optional)."""

    policy: Policy | None  # added to the built-in safety policy
    approver: Approver | None  # asked when a call needs consent (none: the answer is no)
    events: EventSink | None  # what happens to each call
    session_id: str | None
    spill_dir: Path | None  # where cut results are kept (default: the home's spill/)
    spill: SpillStore | None  # a store shared with other executors (the deck's direct calls)
    promoted: Promoted | None  # the deferred tools this caller may call
    grants: Grants | None  # approvals given earlier in the session
    services: Mapping[type, object] | None  # offered to the tools, over the built-in ones
    middleware: Sequence[Middleware | Placed | Mapping[str, Any]]  # the user's, maybe placed
    workspace: Workspace | None
    home: Path | None
    limits: ExecutionConfig | None  # instead of config `execution:`


def compose(loadout: Loadout, **options: Unpack[CallOptions]) -> CallPath:
    """The call path of an executor over `loadout` (see `CallOptions`)."""
    config = loadout.config
    limits = options.get("limits") or config.execution
    workspace = options.get("workspace") or workspace_of(loadout)
    home = options.get("home") or tooldeck_home(config.home, base_dir=config.base_dir)
    session_id, events, approver = options.get("session_id"), options.get("events"), options.get("approver")
    # A caller making many executors (the deck's direct calls) passes one store, so a cut
    # result stays readable by a later call.
    spill = options.get("spill") or SpillStore(options.get("spill_dir") or home / "spill", session=session_id)
    emit = emitter(events)
    grants = options.get("grants")
    grants = grants if grants is not None else Grants()
    gate = _gate(
        loadout,
        options.get("policy"),
        approver,
        grants,
        options.get("promoted"),
        emit,
        workspace,
        home,
        session_id,
    )
    index: ToolIndex = loadout.cached_render(
        ("tooldeck._core.execution.ToolIndex", limits.normalize_names),
        lambda: tool_index(loadout, limits.normalize_names),
    )
    offered = _services(config, loadout, options.get("services"), workspace, spill, limits)
    # What a running tool asks when it needs approval mid-call (held effects, a change too large
    # to checkpoint); a caller that cannot be asked mid-call offers its own.
    offered.setdefault(
        AsksApproval,
        CallApprovals(
            mode=config.approvals.mode,
            approver=approver,
            grants=gate.grants,
            tools=index.tools.get,
            settle=partial(gate.settle, approval_lock=_lock_maker()),
            unattended=config.approvals.unattended,
        ),
    )
    # How a running tool talks back (progress, logs, questions); serve and the agent offer theirs.
    offered.setdefault(ToolChannel, CallChannel(lambda: gate.approver, emit))
    truncate = TruncateResults(limits.max_result_chars, spill)
    placed = placed_middleware(list(options.get("middleware", ())))
    builtin = _links(config, index, gate, emit if events is not None else None, truncate, placed)
    if not all(t.read_only for t in index.tools.values()):
        from tooldeck._core.execution.write_budget import WriteBudgeting

        builtin["budget"] = WriteBudgeting(str(workspace.root), config.sandbox.limits.disk_mb)
    builtin["checkpoint"] = _checkpointing(config, index, home, workspace, offered)
    user = tuple(p.middleware for p in placed)
    chain = arrange({k: v for k, v in builtin.items() if v is not None}, placed)
    return CallPath(
        loadout,
        limits,
        workspace,
        home,
        spill,
        session_id,
        events,
        index,
        gate,
        offered,
        user,
        chain,
        truncate,
    )


def workspace_of(loadout: Loadout) -> Workspace:
    """The workspace of `loadout`'s config, with its protected and hidden sets (computed once
    per loadout)."""
    config = loadout.config
    plane = loadout.cached_render(("tooldeck.ControlPlane",), lambda: ControlPlane.of(config))
    return Workspace(config.workspace, plane=plane)


def emitter(events: EventSink | None) -> Callable[..., None]:
    """`emit(kind, call_id, tool, **fields)` into `events` (nothing without a sink)."""

    def emit(kind: Any, call_id: str, tool: str, **fields: Any) -> None:
        if events is not None:
            events.emit(ExecutionEvent(kind, call_id, tool, **fields))

    return emit


def _gate(
    loadout: Loadout,
    policy: Policy | None,
    approver: Approver | None,
    grants: Grants,
    promoted: Promoted | None,
    emit: Callable[..., None],
    workspace: Workspace,
    home: Path,
    session_id: str | None,
) -> CallGate:
    config = loadout.config
    # The built-in safety policy always applies; a policy given here adds to it.
    safety = SafetyPolicy(config)
    approvals = config.approvals
    audit = config.resolve_path(approvals.audit_log) if approvals.audit_log else home / "approvals.jsonl"
    return CallGate(
        deferred=frozenset(loadout.deferred_names),
        promoted=promoted or frozenset,
        skills_allowed=loadout.skills_allowed,
        policy=safety if policy is None else ChainPolicy(safety, policy),
        custom_policy=policy is not None,
        approver=approver,
        grants=grants,
        emit=emit,
        settings=ApprovalSettings(
            audit_log=audit,
            grants_file=home / "grants.jsonl",
            workspace=workspace.root,
            timeout_s=approvals.timeout_s,
            session_id=session_id,
            unattended=approvals.unattended,
        ),
    )


def _services(
    config: CoreConfig,
    loadout: Loadout,
    given: Mapping[type, object] | None,
    workspace: Workspace,
    spill: SpillStore,
    limits: ExecutionConfig,
) -> dict[type, object]:
    return {
        **(given or {}),
        Workspace: workspace,
        SpillStore: spill,
        # The config reaches tools one section at a time, never whole (see tooldeck._core.context).
        type(limits): limits,
        SandboxConfig: config.sandbox,
        EffectsConfig: config.effects,
        CheckpointsConfig: config.checkpoints,
        ApprovalsConfig: config.approvals,
        ToolSearchConfig: config.tool_search,
        # The loadout the call runs against (tool_search searches its deferred tools).
        Loadout: loadout,
    }


def _links(
    config: CoreConfig,
    index: ToolIndex,
    gate: CallGate,
    emit: Callable[..., None] | None,
    truncate: TruncateResults,
    placed: Sequence[Placed],
) -> dict[str, Middleware | None]:
    """tooldeck's links by name; None for one this loadout does not need."""
    from tooldeck import tracing

    tools = index.tools.values()
    # Nothing placed between validate and approvals: the approvals link validates too (one frame
    # a call instead of two; nothing can tell the difference).
    between = any(p.after == "validate" or p.before == "approvals" for p in placed)
    return {
        # `execute_tool` spans around everything else, when the application traces.
        "trace": tracing.TracingMiddleware() if tracing.enabled() else None,
        "validate": Validate(emit) if between else None,
        "approvals": Approvals(gate) if between else Approvals(gate, emit),
        "effects": Effects(config.effects)
        if config.effects.enabled and any(t.runs_shell for t in tools)
        else None,
        "frame": Frame() if any(is_untrusted(t) for t in tools) else None,
        "truncate": truncate,
    }


def _checkpointing(
    config: CoreConfig, index: ToolIndex, home: Path, workspace: Workspace, services: dict[type, object]
) -> Middleware | None:
    if not config.checkpoints.enabled or all(t.read_only for t in index.tools.values()):
        return None
    from tooldeck._core.checkpoints import store_for
    from tooldeck._core.execution.checkpointing import Checkpointing

    store = store_for(home, workspace.root, config.checkpoints)
    services.setdefault(type(store), store)
    asks = services[AsksApproval]
    return Checkpointing(store, workspace, asks if isinstance(asks, AsksApproval) else None)


def _lock_maker() -> Callable[[], asyncio.Lock]:
    """One lock made on first use (inside the loop that asks): mid-call questions one at a time."""
    made: list[asyncio.Lock] = []

    def get() -> asyncio.Lock:
        if not made:
            made.append(asyncio.Lock())
        return made[0]

    return get


def tool_index(loadout: Loadout, normalise: bool) -> ToolIndex:
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


__all__ = ["CallOptions", "CallPath", "compose", "emitter", "tool_index", "workspace_of"]
