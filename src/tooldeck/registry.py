"""The registry: every candidate tool, from every source (spec R3).

One name may be offered by several *sources* (config, built-in, MCP, plugin); all are kept as
candidates and the first assembly gate picks the winner by priority and reports the loser. Within
one source a name has one owner: a second registration is a `ToolConflictError` naming both,
unless `replace=True` says the overwrite is intended. Every mutation bumps `generation`, which
keys every cache built on the registry. `snapshot()` is an immutable view, safe to use from any
thread while others register.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tooldeck.errors import ToolConflictError
from tooldeck.tool import SOURCE_PRIORITY, Tool


@dataclass(frozen=True, slots=True)
class RegistrySnapshot:
    """An immutable view of the registry at one generation."""

    generation: int
    tools: tuple[Tool, ...]

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    def names(self) -> frozenset[str]:
        return frozenset(t.name for t in self.tools)


class Registry:
    """Thread-safe store of candidate tools."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._lock = threading.RLock()
        self._by_name: dict[str, dict[str, Tool]] = {}
        self._generation = 0
        self._snapshot: RegistrySnapshot | None = None
        for t in tools:
            self.register(t)

    @property
    def generation(self) -> int:
        return self._generation

    def register(self, tool: Tool, *, replace: bool = False) -> None:
        """Add a tool. A same-source name clash raises unless `replace=True`."""
        with self._lock:
            owners = self._by_name.setdefault(tool.name, {})
            existing = owners.get(tool.source)
            if existing is not None and existing is not tool and not replace:
                raise ToolConflictError(
                    f"tool name {tool.name!r} is claimed twice in source {tool.source!r}: "
                    f"by {_owner(existing)} and by {_owner(tool)}; rename one, or register "
                    "with replace=True to overwrite on purpose"
                )
            owners[tool.source] = tool
            self._bump()

    def register_many(self, tools: Iterable[Tool], *, replace: bool = False) -> None:
        with self._lock:
            for t in tools:
                self.register(t, replace=replace)

    def replace(self, tool: Tool) -> None:
        """Register `tool`, overwriting the same-source tool of that name if there is one."""
        self.register(tool, replace=True)

    def deregister(self, name: str, *, source: str | None = None) -> list[Tool]:
        """Remove a tool (from one source, or all); returns what was removed."""
        with self._lock:
            owners = self._by_name.get(name, {})
            removed = [owners.pop(source)] if source in owners else []
            if source is None:
                removed = list(owners.values())
                owners.clear()
            if not owners:
                self._by_name.pop(name, None)
            if removed:
                self._bump()
            return removed

    def deregister_source(self, source: str, *, where: dict[str, object] | None = None) -> int:
        """Remove every tool of one source (optionally with matching `meta`); returns the count."""
        with self._lock:
            doomed = [
                (name, src)
                for name, owners in self._by_name.items()
                for src, t in owners.items()
                if src == source and all(t.meta.get(k) == v for k, v in (where or {}).items())
            ]
            for name, src in doomed:
                del self._by_name[name][src]
                if not self._by_name[name]:
                    del self._by_name[name]
            if doomed:
                self._bump()
            return len(doomed)

    def get(self, name: str) -> Tool | None:
        """The highest-priority tool registered under `name`."""
        owners = self._by_name.get(name)
        if not owners:
            return None
        return min(owners.values(), key=lambda t: SOURCE_PRIORITY[t.source])

    def snapshot(self) -> RegistrySnapshot:
        snap = self._snapshot
        if snap is not None and snap.generation == self._generation:
            return snap
        with self._lock:
            tools = tuple(t for name in sorted(self._by_name) for t in self._by_name[name].values())
            snap = RegistrySnapshot(self._generation, tools)
            self._snapshot = snap
            return snap

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return sum(len(o) for o in self._by_name.values())

    def _bump(self) -> None:
        self._generation += 1
        self._snapshot = None


def _owner(tool: Tool) -> str:
    return tool.owner or f"<{tool.source} tool, toolset {tool.toolset}>"
