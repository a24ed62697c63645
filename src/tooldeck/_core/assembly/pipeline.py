"""The assembly pipeline: candidate tools -> Loadout, memoised on everything it depends on.

It runs in two stages. Selection (dedup, toolsets, disabled toolsets, groups, host shell,
model capabilities) depends only on the registry generation, the config and the platform, so
it is cached under that key. Availability is then evaluated for the survivors only (cached
checks, concurrent under a budget), and the rest (availability, skills, deferral, description
rewrites) is cached under the selection key *plus the availability it saw*. When a dependency
appears or vanishes, the key changes and the next assembly is fresh.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

from tooldeck._core.assembly.config_checks import config_diagnostics, mcp_toolsets
from tooldeck._core.assembly.deferral import DeferralGate, TokenCounter
from tooldeck._core.assembly.gates import (
    POLICY_GATES,
    SELECTION_GATES,
    DedupGate,
    GateInput,
    host_shell_probe,
    skills_allowed,
)
from tooldeck._core.assembly.loadout import Fate, Loadout
from tooldeck._core.assembly.rewrite import render_description
from tooldeck._core.availability import (
    WORKSPACE_KEY,
    AvailabilityChecker,
    RequirementKey,
    combine,
    requirement_keys,
)
from tooldeck._core.availability_types import Availability
from tooldeck._core.config import CoreConfig
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.registry import Registry
from tooldeck._core.tool import DescriptionContext, Tool
from tooldeck._core.toolsets import Toolset, ToolsetIndex
from tooldeck.errors import ToolsetError


@dataclass(frozen=True, slots=True)
class _Selection:
    survivors: tuple[Tool, ...]
    hidden: tuple[Fate, ...]
    reasons: dict[str, str]
    diagnostics: tuple[Diagnostic, ...]
    keys: tuple[RequirementKey, ...]  # distinct requirement keys of the survivors
    slots: tuple[tuple[int, ...], ...]  # per survivor: indexes into `keys`
    gi: GateInput


class Assembler:
    """Assembles loadouts from one registry under one config."""

    def __init__(
        self,
        registry: Registry,
        config: CoreConfig,
        *,
        checker: AvailabilityChecker | None = None,
        token_counter: TokenCounter | None = None,
    ) -> None:
        """`token_counter` counts the tokens of tools as the model's provider receives them, for
        `tool_search.max_exposed_tokens` (default: an estimate from the schema's length)."""
        self.registry = registry
        self.config = config
        self.deferral = DeferralGate(token_counter)
        checks = self.config.checks
        self.checker = checker or AvailabilityChecker(
            ttl_s=checks.ttl_s, budget_ms=checks.budget_ms, flap_grace_s=checks.flap_grace_s
        )
        self._selections: dict[tuple[int, str, bool, str, bool], _Selection] = {}
        self._loadouts: dict[tuple[Any, ...], Loadout] = {}
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget cached check answers; the next assembly re-checks availability."""
        self.checker.invalidate()

    def assemble(self, platform: str | None = None, *, agent: bool = False) -> Loadout:
        """The loadout of `platform`; `agent` for an agent run (tools that need one are kept)."""
        platform = self.config.platform if platform is None else platform
        snap = self.registry.snapshot()
        probe = host_shell_probe(self.config, snap.tools)
        sandbox = self.checker.evaluate((probe,))[0] if probe is not None else None
        bwrap = sandbox is not None and sandbox.ok
        why = (sandbox.reason or "") if sandbox is not None and not sandbox.ok else ""
        sel_key = (snap.generation, platform, bwrap, why, agent)
        sel = self._selections.get(sel_key)
        if sel is None:
            sel = self._select(snap.tools, platform, bwrap, why, agent)
            with self._lock:
                if len(self._selections) > 64:
                    self._selections.clear()
                self._selections[sel_key] = sel
        seen = self.checker.evaluate(sel.keys) if sel.keys else ()
        key = (sel_key, seen)
        loadout = self._loadouts.get(key)
        if loadout is None:
            loadout = self._finish(sel, seen, platform)
            with self._lock:
                if len(self._loadouts) > 256:
                    self._loadouts.clear()
                self._loadouts[key] = loadout
        return loadout

    # -- stage 1: selection -----------------------------------------------------------------

    def _select(
        self, tools: tuple[Tool, ...], platform: str, bwrap: bool, why: str, agent: bool
    ) -> _Selection:
        cfg = self.config
        defined = {
            name: Toolset(name, tuple(ts.tools), tuple(ts.includes), ts.description)
            for name, ts in cfg.toolsets.items()
        }
        for name in mcp_toolsets(cfg):
            defined.setdefault(name, Toolset(name))
        toolsets = ToolsetIndex(tools, defined)
        gi = GateInput(cfg, platform, toolsets, bwrap_installed=bwrap, bwrap_reason=why, agent_run=agent)
        gi.diagnostics.extend(config_diagnostics(cfg, tools, gi.toolsets))
        current: list[Tool] = list(tools)
        hidden: list[Fate] = []
        # The tool that loads deferred tools belongs to the deferral machinery (switched by
        # tool_search.enabled), not to a toolset the platform selects: after de-duplication the
        # selection gates leave it alone, and the deferral gate decides.
        loaders: list[Tool] = []
        for gate in SELECTION_GATES:
            current, dropped = gate.apply(current, gi)
            hidden.extend(dropped)
            if isinstance(gate, DedupGate):
                loaders = [t for t in current if t.loads_deferred]
                current = [t for t in current if not t.loads_deferred]
        current += loaders
        # What the selection found is about the config itself: strict: true makes it an error.
        marked = (d if d.level == "info" else replace(d, strict=True) for d in gi.diagnostics)
        gi.diagnostics[:] = list(dict.fromkeys(marked))
        if cfg.strict:
            problems = [d for d in gi.diagnostics if d.strict]
            if problems:
                raise ToolsetError("; ".join(str(d) for d in problems) + " (strict: true)")
        index: dict[RequirementKey, int] = {}
        slots = []
        workspace = str(cfg.workspace)
        for t in current:
            slots.append(tuple(index.setdefault(k, len(index)) for k in requirement_keys(t, workspace)))
        return _Selection(
            tuple(current),
            tuple(hidden),
            dict(gi.reasons),
            tuple(gi.diagnostics),
            tuple(index),
            tuple(slots),
            gi,
        )

    # -- stage 2: availability, skills, deferral, rewrites -----------------------------------

    def _finish(self, sel: _Selection, seen: tuple[Availability, ...], platform: str) -> Loadout:
        gi = GateInput(
            sel.gi.config,
            platform,
            sel.gi.toolsets,
            sel.gi.bwrap_installed,
            sel.gi.bwrap_reason,
            sel.gi.agent_run,
            availability={
                t.name: combine([seen[i] for i in slot])
                for t, slot in zip(sel.survivors, sel.slots, strict=True)
            },
            reasons=dict(sel.reasons),
        )
        current: list[Tool] = list(sel.survivors)
        hidden = list(sel.hidden)
        for gate in POLICY_GATES:
            current, dropped = gate.apply(current, gi)
            hidden.extend(dropped)
        exposed, deferred, idle = self.deferral.split(current, gi)
        hidden.extend(idle)
        cfg = self.config
        ctx = DescriptionContext(
            frozenset(t.name for t in exposed),
            frozenset(t.name for t in deferred),
            cfg,
            {t.name: t for t in (*exposed, *deferred)},
        )
        descriptions = {t.name: render_description(t, ctx) for t in (*exposed, *deferred)}
        return Loadout(
            platform=platform,
            exposed=tuple(sorted(exposed, key=lambda t: t.name)),
            deferred=tuple(sorted(deferred, key=lambda t: t.name)),
            hidden=tuple(sorted(hidden, key=lambda f: (f.name, f.tool.source))),
            descriptions=descriptions,
            reasons=gi.reasons,
            diagnostics=sel.diagnostics + tuple(gi.diagnostics) + _workspace_notes(sel, seen),
            config=cfg,
            skills_allowed=skills_allowed(cfg),
        )


def _workspace_notes(sel: _Selection, seen: tuple[Availability, ...]) -> tuple[Diagnostic, ...]:
    """A warning when the workspace folder cannot be opened, naming the tools it hides: the
    folder may appear later (the next assembly checks again), so this is no config error."""
    for key, answer in zip(sel.keys, seen, strict=True):
        if key[0] == "workspace" and not answer.ok:
            problem = (answer.reason or "").removeprefix(f"{WORKSPACE_KEY}: ")
            users = ", ".join(t.name for t in sel.survivors if t.needs_workspace)
            return (
                Diagnostic(
                    "warning", f"{problem}; unavailable until it can be opened: {users}", WORKSPACE_KEY
                ),
            )
    return ()
