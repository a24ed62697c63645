"""Keeping one server connected: a state machine, reconnection with backoff, a circuit breaker.

    connecting --> ready <--> degraded
        |            |            |
        v            v            v
      failed <-- reconnecting <---+       (every state retries with backoff until closed)

`connecting` is the first attempt; a server that never got ready is `failed`, with the reason,
and is retried in the background. A ready server whose connection breaks is `reconnecting`; a
transport failure during a call that leaves the connection up (an HTTP request that failed)
makes it `degraded` until a request succeeds again. The breaker counts transport failures in a
row (connects and calls), never errors a tool reports: at its threshold the connection is
dropped and the state is `failed` (the circuit is open) until the next attempt, after a delay
that doubles with each failure. `tools/list_changed` re-lists the server's tools.

All of this runs on the MCP loop; other threads read `status()` and the current tool list.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tooldeck._core.sources.base import ChangeKind
from tooldeck._core.sources.mcp.asks import Caller
from tooldeck._core.sources.mcp.connection import Connection, McpRequestError, TransportFailure, describe
from tooldeck._core.sources.mcp.listing import ListCache
from tooldeck._core.sources.mcp.settings import ServerSpec
from tooldeck._utils.logs import get_logger
from tooldeck.errors import ToolError, ToolUnavailableError

if TYPE_CHECKING:
    import mcp_types

log = get_logger("tooldeck.mcp")
State = Literal["connecting", "ready", "degraded", "reconnecting", "failed", "disabled", "closed"]
USABLE: frozenset[str] = frozenset({"ready", "degraded"})


@dataclass(frozen=True, slots=True)
class Breaker:
    """Transport failures in a row, and how long to wait before the next attempt."""

    threshold: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 60.0

    def delay(self, failures: int) -> float:
        return float(min(self.base_delay_s * 2.0 ** max(failures - 1, 0), self.max_delay_s))


class Supervisor:
    """One server's connection over time. Create on any thread; it runs on `loop`."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        loop: Any,
        on_change: Callable[[ChangeKind], None],
        breaker: Breaker | None = None,
    ) -> None:
        self.spec = spec
        self.loop = loop
        self.breaker = breaker or Breaker()
        self.state: State = "connecting"
        self.error: str | None = None
        self.failures = 0
        # The server's tools as last listed; None until it was listed once.
        self.server_tools: list[mcp_types.Tool] | None = None
        self.first_attempt = threading.Event()
        self._on_change = on_change
        self._conn: Connection | None = None  # the connection while it is usable
        self._current: Connection | None = None  # the latest one, connecting or not
        self._closing = False
        self._wake: asyncio.Event | None = None
        self._refreshing: asyncio.Task[None] | None = None
        # The server's list results, kept across reconnections while its `ttlMs` lasts.
        self._list_cache = ListCache()
        self._future = loop.submit(self._main())
        loop.track(self)

    # -- the life of the connection (on the loop) --------------------------------------------

    async def _main(self) -> None:
        self._wake = asyncio.Event()
        try:
            await self._keep_connected()
        except ModuleNotFoundError as exc:
            self._set("failed", f"the mcp SDK is not installed ({exc}); install tooldeck[mcp]")
        except Exception as exc:  # boundary: a bug here must show as the server's state, not vanish
            self._set("failed", f"the MCP client failed: {describe(exc)}")
        finally:
            self.first_attempt.set()

    async def _keep_connected(self) -> None:
        assert self._wake is not None
        while not self._closing:
            conn = self._current = Connection(
                self.spec, on_tools_changed=self._tools_changed, list_cache=self._list_cache
            )
            try:
                await conn.open()
            except TransportFailure as exc:
                self._attempt_failed(str(exc))
                self.first_attempt.set()
                await self._pause(self.breaker.delay(self.failures))
                continue
            self._conn = conn
            changed = self.server_tools is None or _signature(self.server_tools) != _signature(conn.tools)
            self.server_tools = list(conn.tools)
            self.failures = 0
            self._set("ready", None)
            self.first_attempt.set()
            self._notify("tools" if changed else "availability")
            await conn.closed.wait()
            self._conn = None
            if self._closing:
                break
            self.failures += 1
            self._set(*self._after_failure(f"connection lost: {conn.reason or 'closed'}"))
            self._notify("availability")
            await self._pause(self.breaker.delay(self.failures))

    def _attempt_failed(self, reason: str) -> None:
        self.failures += 1
        if self.server_tools is None:
            self._set("failed", reason)
        else:
            self._set(*self._after_failure(reason))

    def _after_failure(self, reason: str) -> tuple[State, str]:
        if self.failures >= self.breaker.threshold:
            wait = self.breaker.delay(self.failures)
            return "failed", (
                f"{reason} (circuit open after {self.failures} transport failures in a row; "
                f"next attempt in {wait:g} s)"
            )
        return "reconnecting", reason

    async def _pause(self, seconds: float) -> None:
        assert self._wake is not None
        if self._closing:  # the wake-up that `aclose` sent may have come before this pause
            return
        self._wake.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._wake.wait(), seconds)

    def _set(self, state: State, error: str | None) -> None:
        self.state = state
        self.error = error

    def _notify(self, change: ChangeKind) -> None:
        if self._closing:
            return
        try:
            self._on_change(change)
        except Exception:  # boundary: a listener's failure must not stop the supervision
            log.warning("MCP server %r: a change listener failed", self.spec.name, exc_info=True)

    # -- tools/list_changed ------------------------------------------------------------------

    def _tools_changed(self) -> None:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._refresh())

    async def _refresh(self) -> None:
        conn = self._conn
        if conn is None:
            return
        try:
            tools = await conn.refresh_tools()
        except (TransportFailure, McpRequestError) as exc:
            self._set("degraded", f"re-listing tools after a change failed: {exc}")
            self._notify("availability")
            return
        except Exception as exc:  # boundary: a listing that fails in any other way leaves the old one
            self._set("degraded", f"re-listing tools after a change failed: {describe(exc)}")
            self._notify("availability")
            return
        self.server_tools = list(tools)
        if self.state == "degraded":
            self._set("ready", None)
        self._notify("tools")

    # -- calls (on the loop) -----------------------------------------------------------------

    async def call(
        self, tool: str, arguments: dict[str, Any], caller: Caller | None = None
    ) -> mcp_types.CallToolResult:
        conn = self._conn
        if conn is None or not conn.alive or self.state not in USABLE:
            raise ToolUnavailableError(self.unavailable_reason())
        try:
            result = await conn.call(tool, arguments, caller)
        except TransportFailure as exc:
            raise ToolUnavailableError(self.transport_failed(conn, str(exc))) from None
        except McpRequestError as exc:
            self.request_succeeded()
            raise ToolError(str(exc), retryable=True) from None
        self.request_succeeded()
        return result

    def transport_failed(self, conn: Connection | None, reason: str) -> str:
        """Count a transport failure of a call; the message for the caller."""
        if conn is not None and conn.alive:
            self.failures += 1
            if self.failures >= self.breaker.threshold:
                self.loop.submit(conn.close())  # the breaker drops it; the main task reconnects
            else:
                self._set("degraded", f"a request failed: {reason}")
                self._notify("availability")
        return f"MCP server {self.spec.name!r} failed during the call: {reason}; it may come back, try later"

    def request_succeeded(self) -> None:
        self.failures = 0
        if self.state == "degraded":
            self._set("ready", None)
            self._notify("availability")

    def unavailable_reason(self) -> str:
        state = "starting" if self.state == "connecting" else self.state
        why = f": {self.error}" if self.error else ""
        return f"MCP server {self.spec.name!r} is {state}{why}"

    # -- from any thread ---------------------------------------------------------------------

    def wait_first(self, timeout: float) -> bool:
        """Wait until the first connection attempt is over (ready or failed)."""
        return self.first_attempt.wait(timeout)

    def retry_now(self) -> None:
        """Skip the current backoff delay (e.g. a user asked to try again)."""
        if self._wake is not None:
            self.loop.loop.call_soon_threadsafe(self._wake.set)

    async def aclose(self) -> None:
        self._closing = True
        if self._wake is not None:
            self._wake.set()
        conn = self._current
        if conn is not None:
            await conn.close()
        main = asyncio.wrap_future(self._future)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(main, self.spec.connect_timeout + 15.0)
        self._set("closed", None)
        self.loop.untrack(self)

    def close(self, timeout: float = 20.0) -> None:
        if self.state == "closed":
            return
        if self.loop.in_loop:
            self.loop.submit(self.aclose())
            return
        with contextlib.suppress(TimeoutError):
            self.loop.wait(self.aclose(), timeout)


def _signature(tools: list[mcp_types.Tool]) -> list[tuple[str, str]]:
    return sorted((t.name, t.model_dump_json()) for t in tools)
