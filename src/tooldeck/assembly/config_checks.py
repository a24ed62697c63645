"""Config settings that name tools, toolsets or groups, checked against every candidate tool.

A name in the config that matches nothing is almost always a typo, and a typo in such a list
does nothing at all (a skill that allows a tool that does not exist, a deferral rule that defers
nothing). Each is reported as a warning with its key path; `strict: true` makes them errors.

The check is against every candidate tool, not the tools the current platform selects: a name
that is valid on another platform, or for a tool hidden by a later gate, is not a mistake.
"""

from __future__ import annotations

from collections.abc import Sequence

from tooldeck.assembly.deferral import deferral_diagnostics
from tooldeck.assembly.gates import in_group
from tooldeck.config import Config
from tooldeck.diagnostics import Diagnostic
from tooldeck.skills.catalog import active_skills
from tooldeck.tool import Tool
from tooldeck.toolsets import ToolsetIndex


def config_diagnostics(config: Config, tools: Sequence[Tool], toolsets: ToolsetIndex) -> list[Diagnostic]:
    """Every name in the config that matches no candidate tool (or toolset), with its key path."""
    out = _skill_names(config, {t.name for t in tools})
    for name, ts in config.toolsets.items():  # also those no platform selects
        for j, inc in enumerate(ts.includes):
            if inc not in toolsets:
                hint = f"unknown toolset {inc!r} (included by {name})"
                out.append(Diagnostic("warning", hint, f"toolsets.{name}.includes[{j}]"))
    for i, group in enumerate(config.tool_groups or ()):
        if not any(in_group(t, group) for t in tools):
            out.append(Diagnostic("warning", f"tool group {group!r} matches no tool", f"tool_groups[{i}]"))
    out += deferral_diagnostics(tools, config)
    return out


def _skill_names(config: Config, names: set[str]) -> list[Diagnostic]:
    out = []
    for i, skill in enumerate(config.skills):
        for j, name in enumerate(skill.allowed_tools or ()):
            if name not in names:
                out.append(Diagnostic("warning", f"unknown tool {name!r}", f"skills[{i}].allowed_tools[{j}]"))
    for active in active_skills(config):
        if active.file is None:  # lists of the entries themselves were checked above
            continue
        for name in active.allowed_tools or ():
            if name not in names:
                why = f"unknown tool {name!r} in allowed-tools of {active.file}"
                out.append(Diagnostic("warning", why, active.where))
    return out
