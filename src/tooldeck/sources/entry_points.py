"""Plugins: installed distributions that declare entry points in the group `tooldeck.tools`.

An entry point may name a Tool, a list of Tools, or a zero-argument function returning them.
Each load failure is reported with the plugin's name; plugins can be disabled by name.
"""

from __future__ import annotations

from dataclasses import replace
from importlib.metadata import entry_points

from tooldeck.assembly.loadout import Diagnostic
from tooldeck.errors import SourceError
from tooldeck.sources import tools_from_value
from tooldeck.tool import Tool

GROUP = "tooldeck.tools"


def load_plugins(*, disabled: frozenset[str] = frozenset()) -> tuple[list[Tool], list[Diagnostic]]:
    tools: list[Tool] = []
    notes: list[Diagnostic] = []
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        where = f"plugin {ep.name} ({ep.value})"
        if ep.name in disabled:
            notes.append(Diagnostic("info", f"{where} disabled by plugins.disabled", "plugins.disabled"))
            continue
        try:
            value = ep.load()
            if callable(value) and not isinstance(value, list | tuple) and not hasattr(value, "parameters"):
                value = value()
            found = tools_from_value(value, where=where)
        except SourceError as exc:
            notes.append(Diagnostic("warning", str(exc), "plugins"))
            continue
        except Exception as exc:  # boundary: a third-party plugin may raise anything on load
            notes.append(
                Diagnostic("warning", f"{where} failed to load: {type(exc).__name__}: {exc}", "plugins")
            )
            continue
        tools += [replace(t, source="plugin", owner=t.owner or where) for t in found]
    return tools, notes
