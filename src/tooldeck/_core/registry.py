"""The registry: every candidate tool, from every source.

One name may be offered by several kinds of source (config, built-in, MCP, plugin); all are kept
as candidates and the first assembly gate picks the winner by priority and reports the loser.
Within one kind a name has one owner: a second registration is a `ToolConflictError` naming
both, unless `replace=True` says the overwrite is intended. `sync(source, tools)` replaces what
one named source offered, in one step (how a deck loads and refreshes its sources). Every
mutation bumps `generation`, which keys every cache built on the registry. `snapshot()` is an
immutable view, safe to use from any thread while others register.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tooldeck._core.tool import SOURCE_PRIORITY, Tool
from tooldeck.errors import ToolConflictError


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
        # Which named source registered which (name, kind) keys, for `sync`.
        self._by_source: dict[str, set[tuple[str, str]]] = {}
        self._generation = 0
        self._snapshot: RegistrySnapshot | None = None
        for t in tools:
            self.register(t)

    @property
    def generation(self) -> int:
        return self._generation

    def register(self, tool: Tool, *, replace: bool = False) -> None:
        """Add a tool. A same-kind name clash raises unless `replace=True`."""
        with self._lock:
            self._add(tool, replace=replace)
            self._bump()

    def sync(self, source: str, tools: Iterable[Tool]) -> None:
        """Make `tools` exactly what the source named `source` offers (one generation bump).

        A clash with another source of the same kind raises `ToolConflictError` and changes nothing.
        """
        tools = list(tools)
        with self._lock:
            previous = self._by_source.get(source, set())
            mine = {
                key: self._by_name[key[0]][key[1]]
                for key in previous
                if key[1] in self._by_name.get(key[0], {})
            }
            seen: dict[tuple[str, str], Tool] = {}
            for t in tools:
                key = (t.name, t.source)
                clash = seen.get(key)
                if clash is None and key not in mine:
                    clash = self._by_name.get(t.name, {}).get(t.source)
                if clash is not None and clash is not t:
                    raise _conflict(clash, t)
                seen[key] = t
            for name, kind in previous:
                owners = self._by_name.get(name, {})
                owners.pop(kind, None)
                if not owners:
                    self._by_name.pop(name, None)
            for t in tools:
                self._by_name.setdefault(t.name, {})[t.source] = t
            self._by_source[source] = set(seen)
            self._bump()

    def _add(self, tool: Tool, *, replace: bool) -> None:
        owners = self._by_name.setdefault(tool.name, {})
        existing = owners.get(tool.source)
        if existing is not None and existing is not tool and not replace:
            raise _conflict(existing, tool)
        owners[tool.source] = tool

    def register_many(self, tools: Iterable[Tool], *, replace: bool = False) -> None:
        with self._lock:
            for t in tools:
                self._add(t, replace=replace)
            self._bump()

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


def _conflict(first: Tool, second: Tool) -> ToolConflictError:
    a, b = _owner(first), _owner(second)
    return ToolConflictError(
        f"tool name {second.name!r} is claimed twice by {second.source} tools: by {a} and by {b}; "
        "rename one of them, or remove one",
        name=second.name,
        owners=(a, b),
    )


def _owner(tool: Tool) -> str:
    return tool.owner or f"<{tool.source} tool, toolset {tool.toolset}>"
