"""The tool-source protocol: where candidate tools come from.

A source has a name (unique in a deck), a kind (which sets its priority when two sources offer
the same tool name: config > user > builtin > mcp > plugin > acp), and a way to list its tools
together with diagnostics for what it skipped or failed to load. A source may announce changes
(an MCP server's `tools/list_changed`, a server going down): the deck re-lists it, or re-checks
availability, before the next assembly. Built-in tools, `discover:` packages, entry-point
plugins, `tools:` entries, tools given in code, MCP servers and ACP agents are all sources; the
assembler knows nothing about any of them beyond this.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.tool import SourceKind, Tool

ChangeKind = Literal["tools", "availability"]
"""What changed in a source: its tool list, or only whether its tools are available now."""
Listener = Callable[["ToolSource", ChangeKind], None]


@dataclass(frozen=True, slots=True)
class SourceListing:
    """What a source offers now, and what it has to say about it."""

    tools: tuple[Tool, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


@runtime_checkable
class ToolSource(Protocol):
    """Anything that offers tools to a deck."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> SourceKind: ...

    def list_tools(self) -> SourceListing:
        """The source's tools now (may load modules or talk to a server the first time)."""
        ...

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(source, change)` when the source changes; returns an unsubscribe function."""
        ...

    def close(self) -> None:
        """Release what the source holds (connections, processes); listing afterwards may fail."""
        ...


@runtime_checkable
class SlowSource(Protocol):
    """A source whose first listing may take a while (an MCP server still connecting).

    The deck does not wait for it until something needs it: an assembly does, a call of a tool
    whose name this source could never offer (or that a higher-priority source settles) does not.
    """

    def listed(self) -> bool:
        """Whether `list_tools` answers now, without waiting."""
        ...

    def may_offer(self, name: str) -> bool:
        """Whether a tool named `name` could be among this source's tools."""
        ...


class Source:
    """A convenient base: listeners, `changed()`, and a listing computed once until `refresh()`."""

    def __init__(self, name: str, kind: SourceKind) -> None:
        self._name = name
        self._kind: SourceKind = kind
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._listing: SourceListing | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def kind(self) -> SourceKind:
        return self._kind

    def list_tools(self) -> SourceListing:
        listing = self._listing
        if listing is None:
            listing = self._listing = self.load()
        return listing

    def load(self) -> SourceListing:
        """Compute the listing; subclasses override this."""
        return SourceListing()

    def refresh(self) -> None:
        """Forget the listing and tell listeners the tools may have changed."""
        self._listing = None
        self.changed("tools")

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def changed(self, change: ChangeKind) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(self, change)

    def close(self) -> None:
        with self._lock:
            self._listeners.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._name!r}, kind={self._kind!r})"


class StaticSource(Source):
    """Tools given in code (`Deck(tools=[...])`)."""

    def __init__(self, tools: Iterable[Tool], *, name: str = "code", kind: SourceKind = "user") -> None:
        super().__init__(name, kind)
        self._tools = tuple(tools)

    def load(self) -> SourceListing:
        return SourceListing(self._tools)
