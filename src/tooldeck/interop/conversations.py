"""The tooldeck sessions of a framework's runs: one per run identity, so grants, promotions and
checkpoints are per conversation, never global.

An adapter names each call's run (a LangGraph `thread_id`, a pydantic-ai `conversation_id`, an
OpenAI Agents `group_id` or run); the first call of a run opens a `deck.session()` with that
identity as its session id, and later calls of the run reuse it: an approval granted "for the
session" holds for that conversation only, `tool_search` promotes tools for it alone, and the
workspace checkpoints carry its id. A call that names no run gets a session of its own, as
`deck.call` does. The newest `keep` runs are kept; an older one starts afresh when it comes back.

Every call goes through the session's executor, exactly once: parsing, validation, policy and
approvals (nobody to ask: the tool does not run), timeouts and the error envelope.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tooldeck.core import CoreConfig, Loadout, PromotedView, Session, ToolCall, ToolResult, render_loadout


class DeckLike(Protocol):
    """What the adapters need of a `Deck` (they take the deck itself)."""

    @property
    def config(self) -> CoreConfig: ...

    def session(self, *, session_id: str | None = None, direct: bool = True) -> Session: ...

    def loadout(self) -> Loadout: ...


@dataclass
class Conversation:
    """One run's session, and what it sees of the deck's loadout (its promotions exposed)."""

    session: Session
    promoted: PromotedView = field(default_factory=PromotedView)

    def view(self) -> Loadout:
        """The loadout as assembled now, with the tools this run promoted exposed."""
        return self.promoted.view(self.session.loadout(), self.session.state)

    async def call(self, name: str, arguments: str | Mapping[str, Any] | None, call_id: str) -> ToolResult:
        [result] = await self.session.execute([ToolCall(call_id, name, arguments)], loadout=self.view())
        self._took(result)
        return result

    def call_sync(self, name: str, arguments: str | Mapping[str, Any] | None, call_id: str) -> ToolResult:
        [result] = self.session.execute_sync([ToolCall(call_id, name, arguments)])
        self._took(result)
        return result

    def _took(self, result: ToolResult) -> None:
        # What a call changed in the run state (`tool_search`'s promotions): the run sees it next.
        if result.update is not None:
            self.session.state.apply(result.update)


class Conversations:
    """The conversations of one adapter over one deck, by run identity (see the module docstring)."""

    def __init__(self, deck: DeckLike, *, keep: int = 256) -> None:
        self.deck = deck
        self.keep = keep
        self._runs: OrderedDict[str, Conversation] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run: str | None) -> Conversation:
        """The conversation of run `run` (a new one for None)."""
        if run is None:
            return Conversation(self.deck.session(direct=False))
        with self._lock:
            found = self._runs.get(run)
            if found is not None:
                self._runs.move_to_end(run)
                return found
            found = self._runs[run] = Conversation(self.deck.session(session_id=run, direct=False))
            while len(self._runs) > self.keep:
                # Forgotten, not closed: a call of it may still be running.
                self._runs.popitem(last=False)
            return found


@dataclass(frozen=True)
class Exported:
    """An exposed tool as a framework offers it to its model: tooldeck's OpenAI rendering of it
    (the name, the live description, the parameters schema tooldeck validates calls against)."""

    name: str
    description: str
    parameters: dict[str, Any]
    sequential: bool


def exported(loadout: Loadout) -> list[Exported]:
    """The exposed tools of `loadout`, in order, as `render_loadout` gives them for OpenAI."""
    config = loadout.config
    out: list[Exported] = []
    for item in render_loadout(loadout, "openai", strict=False, profile=config.model.name):
        function = item["function"]
        tool = loadout.get(function["name"])
        out.append(
            Exported(
                name=function["name"],
                description=function.get("description", ""),
                parameters=_thawed(function.get("parameters") or {"type": "object", "properties": {}}),
                sequential=tool is not None and (tool.sequential or tool.interactive),
            )
        )
    return out


def _thawed(value: Any) -> Any:
    """A plain, mutable copy of a rendered (read-only) schema: frameworks edit what they get."""
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_thawed(v) for v in value]
    return value


__all__ = ["Conversation", "Conversations", "DeckLike", "Exported", "exported"]
