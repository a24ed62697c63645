"""One item's view of a worker's deck: the same tools, its own workspace and home, maybe fewer tools.

A worker loads its deck once and keeps it; each item gets an `ItemDeck` over it, which the
`Agent` takes as its source of loadouts. The view re-tags the deck's current loadout with the
item's config (its `sandbox.workspace` and `home`, which the executor reads from the loadout)
and, when the item names `tools`, narrows it to those; it rebuilds that only when the deck's
loadout changes, so an item pays for one config copy and one loadout copy, not an assembly.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tooldeck import Config, Deck
from tooldeck.core import Loadout, SandboxConfig, Session

ITEM_TOOLS_GATE = "item_tools"


class UnknownItemTools(ValueError):
    """The item asked for tools the loadout does not have."""


class ItemDeck:
    """A `LoadoutSource` for one item's agent (see `tooldeck.agent.runtime.LoadoutSource`)."""

    def __init__(
        self, deck: Deck, *, workspace: Path, home: Path, tools: tuple[str, ...] | None = None
    ) -> None:
        self.deck = deck
        self._config = deck.config.replace(home=str(home), sandbox=_with_workspace(deck.config, workspace))
        self._tools = frozenset(tools) if tools is not None else None
        self._base: Loadout | None = None
        self._view: Loadout | None = None

    @property
    def config(self) -> Config:
        return self._config

    def loadout(self, platform: str | None = None, *, agent: bool = False) -> Loadout:
        base = self.deck.loadout(platform, agent=agent)
        if base is not self._base or self._view is None:
            self._view = self._narrow(base.with_config(self._config))
            self._base = base
        return self._view

    def session(self, **options: Any) -> Session:
        """A session of the item's agent: this view's config and loadouts, the deck's middleware."""
        return self.deck.session(view=self, **options)

    def check_tools(self, platform: str | None = None) -> None:
        """Raise `UnknownItemTools` when the item names a tool that is neither exposed nor deferred."""
        if self._tools is None:
            return
        base = self.deck.loadout(platform, agent=True)  # what the item's agent gets
        missing = sorted(n for n in self._tools if base.get(n) is None)
        if missing:
            known = ", ".join((*base.exposed_names, *base.deferred_names)) or "none"
            raise UnknownItemTools(
                f"the item's tools are not in the loadout: {', '.join(missing)} (available: {known})"
            )

    def _narrow(self, loadout: Loadout) -> Loadout:
        if self._tools is None:
            return loadout
        return loadout.restricted_to(
            self._tools, why="not among this batch item's tools", gate=ITEM_TOOLS_GATE
        )


def _with_workspace(config: Config, workspace: Path) -> SandboxConfig:
    return dataclasses.replace(config.sandbox, workspace=str(workspace))
