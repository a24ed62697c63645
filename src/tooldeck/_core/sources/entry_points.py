"""Plugins: installed distributions that declare entry points in the group `tooldeck.tools`.

An entry point may name a Tool, a list of Tools, or a zero-argument function returning them.
Each load failure is reported with the plugin's name; plugins can be disabled by name.

The entry points are read straight from the `entry_points.txt` of each distribution on
`sys.path` (first distribution of a name wins, as `importlib.metadata` does): that module and
its e-mail parser cost more at start-up than the whole scan.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.sources import tools_from_value
from tooldeck._core.sources.base import Source, SourceListing
from tooldeck._core.tool import Tool
from tooldeck._utils.user_code import describe, import_module
from tooldeck.errors import SourceError

GROUP = "tooldeck.tools"


@dataclass(frozen=True, slots=True)
class EntryPoint:
    name: str
    value: str  # "package.module:attribute"
    dist: str

    def load(self) -> object:
        module, _, attr = self.value.partition(":")
        obj: object = import_module(module.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj


def entry_points(group: str, path: list[str] | None = None) -> list[EntryPoint]:
    """Entry points of `group` declared by the distributions on `path` (default `sys.path`)."""
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for entry in sys.path if path is None else path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            dist = _normalise(name.rsplit(".", 1)[0].split("-")[0])  # "name-1.0.dist-info" -> "name"
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            found += [EntryPoint(n, v, dist) for n, v in _section(text, group)]
    return found


def _normalise(dist: str) -> str:
    return re.sub(r"[-_.]+", "_", dist).lower()


def _section(text: str, group: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
        elif current == group and "=" in line:
            name, value = line.split("=", 1)
            out.append((name.strip(), value.split("[")[0].strip()))
    return out


def load_plugins(
    *, disabled: frozenset[str] = frozenset(), skip: frozenset[str] = frozenset()
) -> tuple[list[Tool], list[Diagnostic]]:
    """The tools of every plugin, with what went wrong; `skip`: import-path folders (resolved)
    whose distributions are not read."""
    tools: list[Tool] = []
    notes: list[Diagnostic] = []
    path = [p for p in sys.path if os.path.realpath(p or ".") not in skip]
    for ep in sorted(entry_points(GROUP, path), key=lambda e: e.name):
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
            notes.append(Diagnostic("warning", f"{where} failed to load: {exc}", "plugins"))
            continue
        except Exception as exc:  # boundary: a third-party plugin's factory may raise anything
            notes.append(Diagnostic("warning", f"{where} failed to load: {describe(exc)}", "plugins"))
            continue
        tools += [t.relabeled(source="plugin", owner=t.owner or where) for t in found]
    return tools, notes


class PluginSource(Source):
    """Installed distributions' `tooldeck.tools` entry points."""

    def __init__(
        self,
        *,
        disabled: frozenset[str] = frozenset(),
        name: str = "plugins",
        skip: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__(name, "plugin")
        self.disabled = disabled
        self.skip = skip

    def load(self) -> SourceListing:
        tools, notes = load_plugins(disabled=self.disabled, skip=self.skip)
        return SourceListing(tuple(tools), tuple(notes))
