"""Discover tools in the modules of a package, with a cheap static pre-check.

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
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.sources import module_tools
from tooldeck._core.sources.base import Source, SourceListing
from tooldeck._core.tool import SourceKind, Tool
from tooldeck._utils.user_code import import_module
from tooldeck.errors import SourceError

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


class PackageSource(Source):
    """The tools defined in the modules of some packages (`discover:`, and the built-in library)."""

    def __init__(
        self,
        packages: list[str],
        *,
        name: str,
        kind: SourceKind,
        trusted: bool = False,
        report_skips: bool = True,
    ) -> None:
        super().__init__(name, kind)
        self.packages = list(packages)
        self.trusted = trusted
        self.report_skips = report_skips

    def load(self) -> SourceListing:
        tools: list[Tool] = []
        notes: list[Diagnostic] = []
        for i, package in enumerate(self.packages):
            found, n = discover_package(
                package, source=self.kind, trusted=self.trusted, where=f"discover[{i}]"
            )
            tools += found
            notes += n if self.report_skips else [d for d in n if d.level != "info"]
        return SourceListing(tuple(tools), tuple(notes))


def discover_package(
    package: str, *, source: SourceKind, trusted: bool = False, where: str | None = None
) -> tuple[list[Tool], list[Diagnostic]]:
    """Import the tool modules of `package` and collect their module-level tools.

    `trusted` (tooldeck's own library) imports directly; anything else goes through the guarded
    import that turns a failing, exiting, printing or hanging module into a diagnostic.
    """
    notes: list[Diagnostic] = []
    where = where or f"discover[{package}]"
    load: Callable[[str], ModuleType] = importlib.import_module if trusted else import_module
    try:
        pkg = load(package)
    except (ImportError, SourceError) as exc:
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
            sub, sub_notes = discover_package(modname, source=source, trusted=trusted, where=where)
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
            module = load(modname)
        except (ImportError, SourceError) as exc:
            notes.append(Diagnostic("warning", str(exc), where))
            continue
        tools += _collect(module, source)
    return tools, notes


def _collect(module: object, source: SourceKind) -> list[Tool]:
    name = getattr(module, "__name__", "?")
    out: dict[str, Tool] = {}
    for attr, t in module_tools(module):
        if t.name not in out:
            out[t.name] = t.relabeled(source=source, owner=t.owner or f"{name}:{attr}")
    return list(out.values())
