"""The gates, in the order they apply. Each is a small named unit.

A gate takes the tools still in the running and returns the ones it keeps plus a `Fate` for
each one it hides (with its own name and a human reason). Gates are pure: everything they
look at (config, platform, availability, whether the bwrap sandbox works) is in `GateInput`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tooldeck._core.assembly.loadout import Fate
from tooldeck._core.availability import RequirementKey
from tooldeck._core.availability_types import AVAILABLE, Availability
from tooldeck._core.config import CoreConfig
from tooldeck._core.config_load import ALL_TOOLSETS
from tooldeck._core.config_platforms import unknown_platform
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.skills.catalog import active_skills
from tooldeck._core.tool import SOURCE_PRIORITY, Tool
from tooldeck._core.toolsets import ToolsetIndex
from tooldeck._utils.home import tooldeck_home
from tooldeck.errors import UnknownPlatformError


@dataclass(slots=True)
class GateInput:
    config: CoreConfig
    platform: str
    toolsets: ToolsetIndex
    # Whether the bubblewrap sandbox really works here (probed), and why not.
    bwrap_installed: bool = False
    bwrap_reason: str = ""
    # Whether the loadout is for an agent run (`deck.agent`, tooldeck run/chat/batch).
    agent_run: bool = False
    availability: Mapping[str, Availability] = field(default_factory=dict)
    # Filled by gates for later ones and for the Loadout: why each tool made it.
    reasons: dict[str, str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


Kept = list[Tool]
Hidden = list[Fate]


class Gate(Protocol):
    name: str

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]: ...


def _hide(tool: Tool, gate: str, reason: str) -> Fate:
    return Fate(tool, "hidden", gate, reason)


class DedupGate:
    """Same name from several sources: config > user > built-in > MCP > plugin."""

    name = "dedup"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        winners: dict[str, Tool] = {}
        for t in tools:
            best = winners.get(t.name)
            if best is None or SOURCE_PRIORITY[t.source] < SOURCE_PRIORITY[best.source]:
                winners[t.name] = t
        hidden = [
            _hide(
                t,
                self.name,
                f"shadowed by the {w.source} tool of the same name ({w.owner or w.toolset}); "
                "priority: config > user > builtin > mcp > plugin > acp",
            )
            for t in tools
            if (w := winners[t.name]) is not t
        ]
        return [t for t in tools if winners[t.name] is t], hidden


class ToolsetGate:
    """Keep the tools of the platform's toolsets (every toolset when the config names none)."""

    name = "toolset"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        selected = selected_toolsets(gi.config, gi.platform)
        if selected is None or ALL_TOOLSETS & set(selected):
            why = (
                "no platform_toolsets configured" if selected is None else f"platform_toolsets.{gi.platform}"
            )
            for t in tools:
                gi.reasons[t.name] = f"toolset {t.toolset} ({why}: all toolsets)"
            return list(tools), []
        where = f"platform_toolsets.{gi.platform}"
        res = gi.toolsets.resolve(selected, where=where)
        gi.diagnostics.extend(res.diagnostics)
        kept, hidden = [], []
        for t in tools:
            path = res.tools.get(t.name)
            if path is not None:
                gi.reasons[t.name] = f"{where}: {path}"
                kept.append(t)
            else:
                why = f"toolset {t.toolset!r} is not selected by {where} ({', '.join(selected)})"
                hidden.append(_hide(t, self.name, why))
        names = {t.name for t in tools}
        for name in sorted(set(res.tools) - names):
            gi.diagnostics.append(Diagnostic("warning", f"toolset lists unknown tool {name!r}", where))
        return kept, hidden


def selected_toolsets(config: CoreConfig, platform: str) -> list[str] | None:
    """The toolsets `platform` selects; None when the config names no platform at all.

    A platform the config does not know is an error naming the known ones, never a silent
    fallback to every toolset.
    """
    problem = unknown_platform(config, platform)
    if problem is not None:
        raise UnknownPlatformError(problem)
    return config.platform_toolsets.get(platform) if config.platform_toolsets else None


class DisabledToolsetsGate:
    name = "disabled_toolsets"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        disabled = gi.config.disabled_toolsets
        if not disabled:
            return list(tools), []
        res = gi.toolsets.resolve(disabled, where="disabled_toolsets")
        gi.diagnostics.extend(res.diagnostics)
        kept, hidden = [], []
        for t in tools:
            path = res.tools.get(t.name)
            if path is None:
                kept.append(t)
            else:
                hidden.append(_hide(t, self.name, f"toolset disabled by disabled_toolsets: {path}"))
        return kept, hidden


class ToolGroupsGate:
    """`tool_groups: [file, web]` keeps tools whose group (or toolset) is listed, `file` matching `file:read`."""

    name = "tool_groups"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        groups = gi.config.tool_groups
        if groups is None:
            return list(tools), []
        kept, hidden = [], []
        for t in tools:
            if any(in_group(t, g) for g in groups):
                kept.append(t)
            else:
                label = t.group or t.toolset
                hidden.append(
                    _hide(t, self.name, f"group {label!r} is not in tool_groups ({', '.join(groups)})")
                )
        return kept, hidden


def in_group(tool: Tool, group: str) -> bool:
    """Whether `tool_groups` entry `group` covers `tool`: its group (or, without one, its toolset)
    is `group` or a sub-group of it (`file` covers `file:read`)."""
    label = tool.group or tool.toolset
    return label == group or label.startswith(group + ":")


@dataclass(frozen=True, slots=True)
class SandboxProbe:
    """A requirement check: does the bwrap sandbox run a command here? (remembered in `cache`)"""

    cache: Path

    def __call__(self) -> Availability:
        from tooldeck.safety.sandbox.probe import probe_bwrap_cached

        probe = probe_bwrap_cached(self.cache)
        return AVAILABLE if probe.works else Availability.no(probe.reason)

    def __repr__(self) -> str:
        return "bwrap-sandbox-probe"


def host_shell_probe(config: CoreConfig, tools: Sequence[Tool]) -> RequirementKey | None:
    """The sandbox check the host-shell gate needs, or None when its answer cannot matter: no
    sandbox configured, host shells allowed anyway, or no candidate runs shell commands."""
    sandbox = config.sandbox
    if sandbox.kind != "bwrap" or sandbox.allow_host_shell or not any(t.runs_shell for t in tools):
        return None
    return ("check", SandboxProbe(tooldeck_home(config.home, base_dir=config.base_dir) / "cache"))


class HostShellGate:
    """Shell-running tools need a configured sandbox that works here, or explicit host permission."""

    name = "host_shell"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        sandbox = gi.config.sandbox
        if sandbox.allow_host_shell or (sandbox.kind == "bwrap" and gi.bwrap_installed):
            return list(tools), []
        if sandbox.kind == "bwrap":
            detail = gi.bwrap_reason or "bwrap is not installed (apt-get install bubblewrap)"
            why = f"sandbox.kind is bwrap but the sandbox does not work here: {detail}"
        else:
            why = (
                "runs shell commands and no sandbox is configured: set sandbox.kind: bwrap "
                "(with bubblewrap installed) or sandbox.allow_host_shell: true"
            )
        kept = [t for t in tools if not t.runs_shell]
        return kept, [_hide(t, self.name, why) for t in tools if t.runs_shell]


class ModelCapabilityGate:
    name = "model_capability"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        if gi.config.model.supports_vision:
            return list(tools), []
        model = gi.config.model.name or "the configured model"
        why = f"needs vision and {model} does not support it (model.supports_vision: false)"
        return [t for t in tools if not t.needs_vision], [
            _hide(t, self.name, why) for t in tools if t.needs_vision
        ]


class AgentRunGate:
    """Tools that only an agent run can act on are not offered to calls from anywhere else."""

    name = "agent_run"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        if gi.agent_run:
            return list(tools), []
        why = (
            "works only in an agent run (tooldeck run, chat or batch; deck.agent()), whose loop acts on "
            "what it returns; not offered to deck.call, tooldeck call or serve (tooldeck explain --agent "
            "shows an agent run's loadout)"
        )
        return [t for t in tools if not t.needs_agent], [
            _hide(t, self.name, why) for t in tools if t.needs_agent
        ]


class AvailabilityGate:
    name = "availability"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        kept, hidden = [], []
        for t in tools:
            a = gi.availability.get(t.name)
            if a is None or a.ok:
                kept.append(t)
            else:
                hidden.append(_hide(t, self.name, a.reason or "unavailable"))
        return kept, hidden


def skills_allowed(config: CoreConfig) -> frozenset[str] | None:
    """The union of active skills' allowed tools, or None when no active skill restricts tools.

    A `skills:` entry's own `allowed_tools` wins; an entry without one takes the `allowed-tools`
    of its skill folder's SKILL.md (`skills_dirs`). Essential tools (`Tool.essential`) pass the
    skills gate whatever this says.
    """
    lists = [s.allowed_tools for s in active_skills(config) if s.allowed_tools is not None]
    if not lists:
        return None
    return frozenset(name for names in lists for name in names)


class SkillsGate:
    name = "skills"

    def apply(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Hidden]:
        allowed = skills_allowed(gi.config)
        if allowed is None:
            return list(tools), []
        active = ", ".join(s.name for s in active_skills(gi.config) if s.allowed_tools is not None)
        why = f"not in allowed_tools of the active skills ({active})"
        kept = [t for t in tools if t.name in allowed or t.essential]
        return kept, [_hide(t, self.name, why) for t in tools if t.name not in allowed and not t.essential]


# The order they apply in. Deferral (`deferral.py`) is last and handled by the pipeline: it splits
# the survivors into exposed and deferred tools.
SELECTION_GATES: tuple[Gate, ...] = (
    DedupGate(),
    ToolsetGate(),
    DisabledToolsetsGate(),
    ToolGroupsGate(),
    HostShellGate(),
    ModelCapabilityGate(),
    AgentRunGate(),
)
POLICY_GATES: tuple[Gate, ...] = (AvailabilityGate(), SkillsGate())
