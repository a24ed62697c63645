"""`SessionScope`: resources a tool holds for one session, released when the session ends.

Whoever runs a session (the agent, for each conversation) offers a scope to its tool calls
(`context.get(SessionScope)`); a tool that opens something per session, such as a browser
context, registers how to close it, once per key. The owner calls `aclose()` when the session
is over. Without a scope (a lone `deck.call`), such resources live until the deck is closed or
the process exits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Closer = Callable[[], Awaitable[None]]


class SessionScope:
    """Closers registered by tools for one session, run once when the session ends."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._closers: dict[str, Closer] = {}

    def on_close(self, key: str, closer: Closer) -> None:
        """Run `closer` when the session ends; a second registration under `key` replaces the first."""
        self._closers[key] = closer

    def registered(self) -> list[str]:
        return list(self._closers)

    async def aclose(self) -> None:
        """Run every closer, in registration order; one failing does not stop the others."""
        closers, self._closers = self._closers, {}
        for key, closer in closers.items():
            try:
                await closer()
            except Exception as exc:  # boundary: a tool's clean-up may fail in any way
                from tooldeck._utils.logs import (
                    get_logger,  # only on failure: logging costs milliseconds at start-up
                )

                get_logger("tooldeck.tools").warning(
                    "closing %s of session %s failed: %s", key, self.session_id, exc
                )
