"""Which tool schemas the model sees on each iteration, and what it is told about the others.

Deferred tools are sent by name only (a section of the system prompt) until `tool_search`
promotes them. Promotions live in the run state (see `tooldeck._core.disclosure.promotion`): they
count only while the deferred catalog keeps the hash they were recorded under, and only tools
deferred in the current loadout count. A view watches the catalog of its run: when it changes
under the live run (an MCP server announced a new tool list), the promotions are carried over
to the new catalog, minus the tools that vanished.
"""

from __future__ import annotations

from collections.abc import Callable

from tooldeck.core import (
    Loadout,
    PromotedView,
    RunState,
    catalog_hash,
    deferred_listing,
    promote,
    promoted_names,
)

__all__ = ["ToolView", "catalog_hash", "promote", "promoted_names"]


class ToolView:
    """The loadout the model sees, given the run state: the current assembly, with the deferred
    tools the run promoted exposed. One view per conversation (it remembers the catalog it saw)."""

    def __init__(self, loadouts: Callable[[], Loadout]) -> None:
        self.loadouts = loadouts
        self._promoted = PromotedView()

    def for_state(self, state: RunState) -> Loadout:
        return self._promoted.view(self.loadouts(), state)

    @staticmethod
    def system(base: str | None, loadout: Loadout) -> str | None:
        """The system prompt of a request: `base` plus the section naming the deferred tools."""
        section = deferred_listing(loadout)
        if section is None:
            return base
        return f"{base}\n\n{section}" if base else section
