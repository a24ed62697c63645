"""Thread-scoped sessions: one server process per (user, thread), working in that thread's workspace.

A stdio server marked `scope: thread` gets a session of its own for every conversation, started
on its first call, with its working directory and temporary directory (`TMPDIR`, `TMP`, `TEMP`)
pinned to the thread's workspace, so what it writes lands where the thread's file tools can
reach it. Sessions are kept in least-recently-used order: past `max_sessions`, or idle for
`idle_timeout` seconds, a session is closed (its process stopped); a session busy with a call is
never evicted. Everything here runs on the MCP loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck._core.sources.mcp.asks import Caller
from tooldeck._core.sources.mcp.connection import Connection, McpRequestError, TransportFailure
from tooldeck._core.sources.mcp.settings import ServerSpec
from tooldeck.errors import ToolError, ToolUnavailableError

if TYPE_CHECKING:
    import mcp_types

ThreadKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class McpThread:
    """Who a call is for, offered by the application through the call's services.

    `context.get(McpThread)`: the user and thread whose session serves the call, and the
    thread's workspace. Without it, the thread is the call's session id and the workspace is the
    deck's workspace root.
    """

    user: str = "default"
    thread: str | None = None
    workspace: Path | None = None


@dataclass
class _Session:
    conn: Connection
    workspace: Path
    last_used: float = field(default_factory=time.monotonic)
    busy: int = 0


class SessionPool:
    """The open thread-scoped sessions of one server."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self._sessions: OrderedDict[ThreadKey, _Session] = OrderedDict()
        self._starting: dict[ThreadKey, asyncio.Lock] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._closed = False

    def keys(self) -> list[ThreadKey]:
        return list(self._sessions)

    def pids(self) -> list[int]:
        """The server processes now running for threads (for tests and status displays)."""
        return [s.conn.child.pid for s in self._sessions.values() if s.conn.child and s.conn.child.pid]

    async def call(
        self,
        key: ThreadKey,
        workspace: Path,
        tool: str,
        arguments: dict[str, Any],
        caller: Caller | None = None,
    ) -> mcp_types.CallToolResult:
        session = await self._acquire(key, workspace)
        session.busy += 1
        try:
            return await session.conn.call(tool, arguments, caller)
        except TransportFailure as exc:
            await self._drop(key, session)
            raise ToolUnavailableError(
                f"MCP server {self.spec.name!r} (session of thread {key[1]!r}) failed during the call: {exc}; "
                "a new session starts with the next call"
            ) from None
        except McpRequestError as exc:
            raise ToolError(str(exc), retryable=True) from None
        finally:
            session.busy -= 1
            session.last_used = time.monotonic()

    async def _acquire(self, key: ThreadKey, workspace: Path) -> _Session:
        if self._closed:
            raise ToolUnavailableError(f"MCP server {self.spec.name!r} is closed")
        lock = self._starting.setdefault(key, asyncio.Lock())
        async with lock:
            found = self._sessions.get(key)
            if found is not None and found.conn.alive:
                self._sessions.move_to_end(key)
                return found
            if found is not None:
                await self._drop(key, found)
            await self._make_room()
            session = await self._start(key, workspace)
            self._sessions[key] = session
        self._start_sweeper()
        return session

    async def _start(self, key: ThreadKey, workspace: Path) -> _Session:
        try:
            (workspace / ".tmp").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ToolUnavailableError(
                f"cannot prepare the workspace {workspace} for thread {key[1]!r}: {exc}"
            ) from None
        conn = Connection(self.spec.pinned(workspace))
        try:
            await conn.open()
        except TransportFailure as exc:
            raise ToolUnavailableError(
                f"MCP server {self.spec.name!r} could not start a session for thread {key[1]!r}: {exc}"
            ) from None
        return _Session(conn, workspace)

    async def _make_room(self) -> None:
        while len(self._sessions) >= self.spec.max_sessions:
            idle = [(k, s) for k, s in self._sessions.items() if s.busy == 0]
            if not idle:
                return  # every session is busy: go over the limit rather than break a call
            key, session = idle[0]  # the least recently used
            await self._drop(key, session)

    async def _drop(self, key: ThreadKey, session: _Session) -> None:
        if self._sessions.get(key) is session:
            del self._sessions[key]
        await session.conn.close()

    def _start_sweeper(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.ensure_future(self._sweep())

    async def _sweep(self) -> None:
        """Close sessions idle for longer than `idle_timeout`, until none is left."""
        limit = self.spec.idle_timeout
        while self._sessions and not self._closed:
            await asyncio.sleep(min(limit / 4, 30.0))
            now = time.monotonic()
            for key, session in list(self._sessions.items()):
                if session.busy == 0 and now - session.last_used >= limit:
                    await self._drop(key, session)

    async def aclose(self) -> None:
        self._closed = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        sessions = list(self._sessions.items())
        self._sessions.clear()
        await asyncio.gather(*(s.conn.close() for _, s in sessions), return_exceptions=True)
