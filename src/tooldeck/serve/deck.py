"""What `DeckServer` needs of a deck: `ServedDeck`, the part of `tooldeck.Deck` it uses.

The server takes any object of this shape (a `Deck` is one) instead of importing `Deck`: the
serve package then builds on the core's public face alone, so `tooldeck.Config` can compose the
serve section (`tooldeck.serve.config`) without the front door and the server importing each
other in a circle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig, DeclaredResource, Loadout, Prompt, Session, ToolSource


class ServedDeck(Protocol):
    """A deck as the server sees it: its config, what it declares, its sources, its loadout
    and sessions over it."""

    @property
    def config(self) -> CoreConfig:
        """The config; the server reads its own section with `config.section(ServeConfig)`."""
        ...

    @property
    def prompts(self) -> Sequence[Prompt]:
        """The prompts declared in Python, listed before the skills."""
        ...

    @property
    def resources(self) -> Sequence[DeclaredResource]:
        """The resources declared in Python, listed before the workspace's files."""
        ...

    @property
    def sources(self) -> Sequence[ToolSource]:
        """The tool sources, whose change announcements the server watches."""
        ...

    def loadout(self, platform: str | None = None) -> Loadout:
        """The loadout for `platform` as of now."""
        ...

    def session(
        self,
        *,
        platform: str | None = None,
        session_id: str | None = None,
        direct: bool = True,
        services: Mapping[type, object] | None = None,
    ) -> Session:
        """A session the server's calls run in."""
        ...
