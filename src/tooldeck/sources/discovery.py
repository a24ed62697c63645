"""Discover tools in the modules of a package, with a cheap static pre-check (spec R4a).

Before importing a module we read its text: a module that mentions neither `@tool`, `Tool(`
nor `__tools__` is skipped without being imported, and the skip is reported with its reason.
Modules whose name starts with `_` are private and skipped too. An import that fails is
reported (never swallowed); tools found are tagged with the source kind given.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from dataclasses import replace
from pathlib import Path

from tooldeck.assembly.loadout import Diagnostic
from tooldeck.sources import module_tools
from tooldeck.tool import SourceKind, Tool

_MARKERS = re.compile(r"@tool\b|\bTool\(|\bfunction_tool\(|__tools__")


def precheck(path: Path) -> str | None:
    """Why the module at `path` can be skipped without importing it, or None to import it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"unreadable: {exc}"
    if not _MARKERS.search(text):
        return "no tool definitions (no @tool, Tool( or __tools__ in its text)"
    return None


def discover_package(package: str, *, source: SourceKind) -> tuple[list[Tool], list[Diagnostic]]:
    """Import the tool modules of `package` and collect their module-level tools."""
    notes: list[Diagnostic] = []
    where = f"discover[{package}]"
    try:
        pkg = importlib.import_module(package)
    except ImportError as exc:
        return [], [Diagnostic("warning", f"cannot import package {package!r}: {exc}", where)]
    paths = list(getattr(pkg, "__path__", []))
    if not paths:
        return _collect(pkg, source), notes
    tools: list[Tool] = []
    for info in sorted(pkgutil.iter_modules(paths), key=lambda m: m.name):
        modname = f"{package}.{info.name}"
        if info.name.startswith("_"):
            notes.append(Diagnostic("info", f"skipped {modname}: private module", where))
            continue
        if info.ispkg:
            sub, sub_notes = discover_package(modname, source=source)
            tools += sub
            notes += sub_notes
            continue
        spec = importlib.util.find_spec(modname)
        origin = Path(spec.origin) if spec and spec.origin else None
        reason = precheck(origin) if origin else "no source file"
        if reason:
            notes.append(Diagnostic("info", f"skipped {modname}: {reason}", where))
            continue
        try:
            module = importlib.import_module(modname)
        except Exception as exc:  # boundary: importing user code may raise anything
            notes.append(
                Diagnostic("warning", f"failed to import {modname}: {type(exc).__name__}: {exc}", where)
            )
            continue
        tools += _collect(module, source)
    return tools, notes


def _collect(module: object, source: SourceKind) -> list[Tool]:
    name = getattr(module, "__name__", "?")
    out: dict[str, Tool] = {}
    for attr, t in module_tools(module):
        if t.name not in out:
            out[t.name] = replace(t, source=source, owner=t.owner or f"{name}:{attr}")
    return list(out.values())
