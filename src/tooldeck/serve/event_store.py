"""Resumable SSE streams for `tooldeck serve --transport http`: the events of each stream kept in
memory, the newest `max_events` of them in all, so a client that lost its connection reconnects
with `Last-Event-ID` and gets what it missed (MCP's resumability; the server also sends a
priming event and a `retry` interval). An event older than what is kept is simply not replayed:
the client then sees the stream from where the store begins."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.streamable_http import EventCallback

# How many events are kept for replay, across every stream.
MAX_EVENTS = 2048
# How long a client waits before reconnecting a dropped stream, in milliseconds.
RETRY_MS = 1000


def event_store(max_events: int = MAX_EVENTS) -> Any:
    """An `EventStore` of the SDK (imported only when serving over HTTP)."""
    from mcp.server.streamable_http import EventMessage, EventStore

    class BoundedEventStore(EventStore):
        def __init__(self) -> None:
            self._events: OrderedDict[str, tuple[str, Any]] = OrderedDict()
            self._ids = itertools.count(1)

        async def store_event(self, stream_id: str, message: Any) -> str:
            event_id = f"{next(self._ids)}"
            self._events[event_id] = (stream_id, message)
            while len(self._events) > max_events:
                self._events.popitem(last=False)
            return event_id

        async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
            found = self._events.get(last_event_id)
            if found is None:
                return None
            stream_id = found[0]
            later = itertools.dropwhile(lambda item: item[0] != last_event_id, list(self._events.items()))
            next(later, None)  # the last one the client has
            for event_id, (stream, message) in later:
                if stream == stream_id and message is not None:
                    await send_callback(EventMessage(message, event_id))
            return stream_id

    return BoundedEventStore()
