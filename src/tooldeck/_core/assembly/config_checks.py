"""Config settings that name tools, toolsets or groups, checked against every candidate tool.

A name in the config that matches nothing is almost always a typo, and a typo in such a list
does nothing at all (a skill that allows a tool that does not exist, a deferral rule that defers
nothing). Each is reported as a warning with its key path; `strict: true` makes them errors.

The check is against every candidate tool, not the tools the current platform selects: a name
that is valid on another platform, or for a tool hidden by a later gate, is not a mistake.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

from tooldeck._core.assembly.deferral import deferral_diagnostics
from tooldeck._core.assembly.gates import in_group
from tooldeck._core.config import CoreConfig
from tooldeck._core.diagnostics import Diagnostic, did_you_mean
from tooldeck._core.skills.catalog import active_skills
from tooldeck._core.tool import Tool
from tooldeck._core.toolsets import ToolsetIndex
from tooldeck.errors import ConfigError


def config_diagnostics(config: CoreConfig, tools: Sequence[Tool], toolsets: ToolsetIndex) -> list[Diagnostic]:
    """Every name in the config that matches no candidate tool (or toolset), with its key path."""
    out = _skill_names(config, {t.name for t in tools})
    for name, ts in config.toolsets.items():  # also those no platform selects
        for j, inc in enumerate(ts.includes):
            if inc not in toolsets:
                hint = f"unknown toolset {inc!r} (included by {name})"
                out.append(Diagnostic("warning", hint, f"toolsets.{name}.includes[{j}]"))
    out += toolsets.cycles()
    for i, group in enumerate(config.tool_groups or ()):
        if not any(in_group(t, group) for t in tools):
            out.append(Diagnostic("warning", f"tool group {group!r} matches no tool", f"tool_groups[{i}]"))
    out += deferral_diagnostics(tools, config)
    out += _approval_names(config, tools)
    return out


def _approval_names(config: CoreConfig, tools: Sequence[Tool]) -> list[Diagnostic]:
    """`approvals.tools` keys (names or globs) that match no candidate: a misspelt name would
    leave the tool under its default approval mode, silently."""
    names = {t.name for t in tools}
    out = []
    for key in config.approvals.tools:
        if key in names or (_is_glob(key) and any(fnmatch.fnmatchcase(n, key) for n in names)):
            continue
        if _may_name_unlisted_mcp_tool(key, config, tools):
            continue
        what = f"pattern {key!r} matches no tool" if _is_glob(key) else f"no tool named {key!r}"
        out.append(Diagnostic("warning", what + did_you_mean(key, names, n=1), f"approvals.tools.{key}"))
    return out


def _is_glob(key: str) -> bool:
    return any(c in key for c in "*?[")


def _may_name_unlisted_mcp_tool(key: str, config: CoreConfig, tools: Sequence[Tool]) -> bool:
    """Whether `key` may name a tool of a configured MCP server that lists no tools now (it did
    not connect): such a name cannot be checked, and is no typo for all we know."""
    if not config.mcp_servers or not key.startswith("mcp"):
        return False
    from tooldeck._core.config_load import mcp_server_configs

    try:
        servers = [name for name, server in mcp_server_configs(config).items() if server.enabled]
    except ConfigError:  # the server file went bad since loading: nothing to compare with
        return True
    listed = {t.toolset for t in tools if t.source == "mcp"}
    literal = re.split(r"[*?\[]", key, maxsplit=1)[0]
    for server in servers:
        prefix = f"mcp__{server}__"
        if f"mcp-{server}" not in listed and (prefix.startswith(literal) or literal.startswith(prefix)):
            return True
    return False


def mcp_toolsets(config: CoreConfig) -> list[str]:
    """The toolset of every enabled MCP server (`mcp-<server>`), listed or not: naming one is
    no mistake while its server connects, or when it failed (a server's failure is reported
    on its own)."""
    if not config.mcp_servers:
        return []
    from tooldeck._core.config_load import mcp_server_configs

    try:
        servers = mcp_server_configs(config)
    except ConfigError:  # the server file went bad since loading: loading the deck says so
        return []
    return [f"mcp-{name}" for name, server in servers.items() if server.enabled]


def _skill_names(config: CoreConfig, names: set[str]) -> list[Diagnostic]:
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
