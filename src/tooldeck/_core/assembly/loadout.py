"""The Loadout: what one assembly decided, tool by tool.

Exposed tools go to the model with their full schema, deferred tools by name only (behind
tool_search), and every hidden tool carries the gate that hid it and a human reason, so
"why is this tool not visible?" always has an answer.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from tooldeck._core.config import CoreConfig
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.tool import Tool

R = TypeVar("R")

Status = Literal["exposed", "deferred", "hidden"]


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
    # The config it was assembled under (the executor and agent take their settings from it).
    config: CoreConfig = field(default_factory=CoreConfig)
    # The union of the active skills' allowed tools, or None when no skill restricts tools.
    skills_allowed: frozenset[str] | None = None
    # Deferred tools exposed in this view because `tool_search` promoted them (see `with_exposed`).
    promoted: tuple[Tool, ...] = ()
    _renders: dict[Hashable, Any] = field(default_factory=dict, repr=False)
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

    @property
    def all_deferred(self) -> tuple[Tool, ...]:
        """Every tool the assembly deferred, promoted ones included, in name order: the catalog
        `tool_search` searches (the same whatever this view has promoted)."""
        if not self.promoted:
            return self.deferred
        return tuple(sorted((*self.deferred, *self.promoted), key=lambda t: t.name))

    def with_exposed(self, names: frozenset[str]) -> Loadout:
        """This loadout with the deferred tools in `names` exposed (promoted), sharing its descriptions."""
        promoted = tuple(t for t in self.deferred if t.name in names)
        if not promoted:
            return self
        return self._derived(
            exposed=self.exposed + promoted,
            deferred=tuple(t for t in self.deferred if t.name not in names),
            promoted=self.promoted + promoted,
        )

    def restricted_to(self, names: frozenset[str], *, why: str, gate: str = "scope") -> Loadout:
        """This loadout with only the tools in `names` left; the others hidden by `gate` with `why`."""
        dropped = tuple(
            Fate(t, "hidden", gate, why) for t in (*self.exposed, *self.deferred) if t.name not in names
        )
        return self._derived(
            exposed=tuple(t for t in self.exposed if t.name in names),
            deferred=tuple(t for t in self.deferred if t.name in names),
            hidden=self.hidden + dropped,
            promoted=tuple(t for t in self.promoted if t.name in names),
        )

    def with_config(self, config: CoreConfig) -> Loadout:
        """The same tools, descriptions and reasons under another config (a batch item's sandbox)."""
        return self._derived(config=config)

    def _derived(self, **changes: Any) -> Loadout:
        """A copy with `changes`; its render cache starts empty, as renders depend on both."""
        return dataclasses.replace(self, _renders={}, _lock=threading.Lock(), **changes)

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

    def cached_render(self, key: Hashable, build: Callable[[], R]) -> R:
        """Memoise something worked out from this loadout (dialect output, token counts, the
        executor's index): `build()` once per `key`, a tuple naming its module and parameters."""
        hit: R | None = self._renders.get(key)
        if hit is not None:
            return hit
        with self._lock:
            hit = self._renders.get(key)
            if hit is None:
                hit = build()
                self._renders[key] = hit
            return hit
