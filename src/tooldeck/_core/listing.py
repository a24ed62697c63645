"""A deck's sources listed into its registry, and kept listed.

Each source is listed when the deck is made and again when it announces a change. A source
that is slow to list (an MCP server connecting) is not waited for then: `settle` lists it
when something needs it - every pending source for an assembly, only those that could offer
one of the names for a direct call (a call of a tool that uses the rest of the loadout waits
for them all). They have all been connecting since the deck was made, so waiting for each in
turn takes as long as the slowest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence

from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.registry import Registry
from tooldeck._core.sources.base import ChangeKind, SlowSource, ToolSource
from tooldeck._core.tool import SOURCE_PRIORITY, Tool
from tooldeck.errors import ConfigError, ToolConflictError


class Listings:
    """See the module docstring; `changed` is told whenever what the sources offer changed."""

    def __init__(
        self, sources: Sequence[ToolSource], registry: Registry, changed: Callable[[], None]
    ) -> None:
        self.sources = list(sources)
        self.registry = registry
        self.notes: dict[str, tuple[Diagnostic, ...]] = {}
        self._changed = changed
        # Sources not listed yet: slow ones still connecting, listed when something needs them.
        self.pending: list[ToolSource] = []
        self._lock = threading.Lock()
        for source in self.sources:
            if isinstance(source, SlowSource):
                # Subscribed first, so a listing that arrives meanwhile is taken in at once.
                source.subscribe(self._on_change)
                if source.listed():
                    self._sync(source)
                else:
                    self.pending.append(source)
                continue
            self._sync(source)
            source.subscribe(self._on_change)

    def settle(self, calling: Collection[str] | None) -> None:
        """List the pending sources that `calling` needs (all of them for None)."""
        with self._lock:
            pending = list(self.pending)
        if not pending:
            return
        if calling is not None and any(_reads_loadout(self.registry.get(n)) for n in calling):
            calling = None
        for source in pending:
            if calling is None or any(self._may_change(source, n) for n in calling):
                self._sync(source)
                with self._lock:
                    if source in self.pending and isinstance(source, SlowSource) and source.listed():
                        self.pending.remove(source)

    def diagnostics(self) -> list[Diagnostic]:
        return [d for notes in self.notes.values() for d in notes]

    def close(self) -> None:
        """Close every source (MCP connections, child processes), all at once: each may take a moment."""
        if len(self.sources) < 2:
            for source in self.sources:
                source.close()
            return
        closers = [
            threading.Thread(target=s.close, name=f"close-{s.name}", daemon=True) for s in self.sources
        ]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()

    def _may_change(self, source: ToolSource, name: str) -> bool:
        """Whether listing `source` could change which tool `name` is."""
        if not (isinstance(source, SlowSource) and source.may_offer(name)):
            return False
        found = self.registry.get(name)
        return found is None or SOURCE_PRIORITY[found.source] >= SOURCE_PRIORITY[source.kind]

    def _sync(self, source: ToolSource) -> None:
        listing = source.list_tools()
        tools = [t if t.source == source.kind else t.relabeled(source=source.kind) for t in listing.tools]
        try:
            self.registry.sync(source.name, tools)
        except ToolConflictError as exc:
            raise ConfigError(f"source {source.name!r}: {exc}") from None
        self.notes[source.name] = listing.diagnostics

    def _on_change(self, source: ToolSource, change: ChangeKind) -> None:
        if change == "tools":
            self._sync(source)
        self._changed()


def _reads_loadout(tool: Tool | None) -> bool:
    """Whether a call of `tool` depends on the rest of the loadout (`execute_code`'s programs
    call the other tools, `tool_search` loads deferred ones)."""
    return tool is not None and (tool.loads_deferred or tool.calls_tools)


__all__ = ["Listings"]
