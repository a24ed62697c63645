"""The Loadout: what one assembly decided, tool by tool (spec G).

Exposed tools go to the model with their full schema, deferred tools by name only (behind
tool_search), and every hidden tool carries the gate that hid it and a human reason, so
"why is this tool not visible?" always has an answer.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldeck.tool import Tool

Status = Literal["exposed", "deferred", "hidden"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found while assembling (unknown toolset, include cycle, ...)."""

    level: Literal["info", "warning", "error"]
    message: str
    path: str | None = None  # config key path, when there is one

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True, slots=True)
class Fate:
    """One candidate's outcome, as `explain` shows it."""

    tool: Tool
    status: Status
    gate: str | None
    reason: str | None

    @property
    def name(self) -> str:
        return self.tool.name


@dataclass(frozen=True, eq=False)
class Loadout:
    """The result of one assembly. Immutable; renders are cached per dialect."""

    platform: str
    exposed: tuple[Tool, ...]
    deferred: tuple[Tool, ...]
    hidden: tuple[Fate, ...]
    descriptions: Mapping[str, str]
    reasons: Mapping[str, str]  # why exposed/deferred tools made it (selection path)
    diagnostics: tuple[Diagnostic, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    _renders: dict[Any, Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _index: dict[str, Tool] = field(init=False, repr=False)
    _deferred: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        index = {t.name: t for t in self.deferred}
        index.update({t.name: t for t in self.exposed})
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_deferred", frozenset(t.name for t in self.deferred))

    @property
    def exposed_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.exposed)

    @property
    def deferred_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.deferred)

    def get(self, name: str) -> Tool | None:
        """The exposed or deferred tool called `name` (what a call may route to)."""
        return self._index.get(name)

    def is_deferred(self, name: str) -> bool:
        return name in self._deferred

    def description(self, name: str) -> str:
        return self.descriptions[name]

    def fates(self) -> list[Fate]:
        """Every candidate: exposed, then deferred, then hidden, each in name order."""
        out = [Fate(t, "exposed", None, self.reasons.get(t.name)) for t in self.exposed]
        out += [Fate(t, "deferred", "deferral", self.reasons.get(t.name)) for t in self.deferred]
        out += list(self.hidden)
        return out

    def cached_render(self, key: Any, build: Any) -> Any:
        """Memoise a rendering of this loadout (dialect output, token counts, ...)."""
        hit = self._renders.get(key)
        if hit is not None:
            return hit
        with self._lock:
            hit = self._renders.get(key)
            if hit is None:
                hit = build()
                self._renders[key] = hit
            return hit
