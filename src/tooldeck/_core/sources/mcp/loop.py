"""The event loop the MCP client lives on: one daemon thread, shared by every MCP server.

MCP sessions are asynchronous and belong to the loop that opened them, while the deck is used
from synchronous code and from other event loops (each `execute_sync` runs its own). So every
connection lives here; the deck waits for results (`wait`) or awaits them from its own loop
(`bridge`, which passes cancellation through, so an executor timeout stops the MCP request).
Code that can run here instead (`run`, behind `Deck.run`) makes MCP calls with no hand-off
between threads: `bridge` then awaits the call directly.
The thread is a daemon and never delays interpreter exit; at exit, the servers still open are
closed (children stopped), within a bounded time.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import threading
import weakref
from collections.abc import Coroutine, Iterable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
# How long interpreter exit waits for servers to close (a server that ignores it is killed).
EXIT_BUDGET_S = 5.0
# How long `run` waits for a coroutine it cancelled (on a timeout or Ctrl-C) to stop.
CANCEL_GRACE_S = 5.0


class Closable(Protocol):
    async def aclose(self) -> None: ...


class McpLoop:
    """An asyncio loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name="tooldeck-mcp", daemon=True)
        self.thread.start()
        self._ready.wait()
        self._open: weakref.WeakSet[Any] = weakref.WeakSet()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._ready.set)
        self.loop.run_forever()

    @property
    def in_loop(self) -> bool:
        return threading.current_thread() is self.thread

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start `coro` on the loop; the returned future can be waited on from any thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def wait(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the loop and wait for it here (not to be called from the loop's thread)."""
        if self.in_loop:
            coro.close()
            raise RuntimeError("McpLoop.wait called from the MCP loop itself; it would wait forever")
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s") from None

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the loop and wait here for its end (not from the loop's own thread).

        Whatever ends the wait early (a timeout, Ctrl-C in the waiting thread) cancels the
        coroutine and waits a moment for it to stop, so it does not go on running unattended.
        A timeout raises TimeoutError; a coroutine that was cancelled, asyncio.CancelledError.
        """
        if self.in_loop:
            coro.close()
            raise RuntimeError(
                "called from the event loop it would run the coroutine on: that would wait forever; "
                "await the coroutine instead"
            )
        ended = threading.Event()
        started: list[asyncio.Task[T]] = []

        def start() -> None:
            task = self.loop.create_task(coro)
            started.append(task)
            task.add_done_callback(lambda _: ended.set())

        self.loop.call_soon_threadsafe(start)
        try:
            if not ended.wait(timeout):
                raise TimeoutError(f"no answer within {timeout:g} s")
        except BaseException:  # boundary: any interruption of the wait stops the coroutine, then goes on
            with contextlib.suppress(RuntimeError):  # the loop is gone: nothing is left running
                self.loop.call_soon_threadsafe(_cancel, started)
                ended.wait(CANCEL_GRACE_S)
            raise
        return started[0].result()

    async def bridge(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` on the MCP loop from another loop; cancelling the caller cancels it there.

        One hand-off each way and nothing else (no concurrent.futures.Future in between): this
        is on the path of every MCP tool call.
        """
        caller = asyncio.get_running_loop()
        if caller is self.loop:
            return await coro
        done: asyncio.Future[T] = caller.create_future()
        started: list[asyncio.Task[T]] = []

        def finish(task: asyncio.Task[T]) -> None:
            with contextlib.suppress(RuntimeError):  # the caller's loop is gone: nobody to tell
                caller.call_soon_threadsafe(_settle, done, task)

        def start() -> None:
            task = self.loop.create_task(coro)
            started.append(task)
            task.add_done_callback(finish)

        self.loop.call_soon_threadsafe(start)
        try:
            return await done
        except asyncio.CancelledError:
            self.loop.call_soon_threadsafe(_cancel, started)
            raise

    def track(self, owner: Closable) -> None:
        """Close `owner` at interpreter exit if it is still open then."""
        self._open.add(owner)

    def untrack(self, owner: Closable) -> None:
        self._open.discard(owner)

    def open_owners(self) -> list[Any]:
        """The session owners open now (to close later only those opened since)."""
        return list(self._open)

    def close_all(self, budget_s: float = EXIT_BUDGET_S, *, keep: Iterable[Any] = ()) -> None:
        """Close every open session owner but those in `keep`, within `budget_s`."""
        kept = {id(o) for o in keep}
        owners = [o for o in self._open if id(o) not in kept]
        if not owners or self.loop.is_closed() or not self.thread.is_alive():
            return

        async def close_them() -> None:
            await asyncio.gather(*(o.aclose() for o in owners), return_exceptions=True)

        # At exit, whatever did not close in time dies with the process (its children too).
        with contextlib.suppress(TimeoutError, RuntimeError):
            self.wait(close_them(), budget_s)


def _settle(done: asyncio.Future[Any], task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        if not done.done():
            done.cancel()
        return
    error = task.exception()  # read even when nobody waits any more, so it is not reported as lost
    if done.done():
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(task.result())


def _cancel(started: list[asyncio.Task[Any]]) -> None:
    for task in started:
        task.cancel()


_LOOP: McpLoop | None = None
_LOCK = threading.Lock()


def current_mcp_loop() -> McpLoop | None:
    """The shared MCP loop if something started it, else None (nothing is started)."""
    return _LOOP


def mcp_loop() -> McpLoop:
    """The shared MCP loop, started on first use."""
    global _LOOP
    with _LOCK:
        if _LOOP is None:
            _LOOP = McpLoop()
            atexit.register(_LOOP.close_all)
        return _LOOP
