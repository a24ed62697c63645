"""`BrowserHost`: one Chromium per deck, one browser context per session, on a thread of its own.

Playwright's objects belong to the event loop that made them, while tool calls arrive on
whatever loop runs them (a new one per `deck.call_sync`, the agent's own). So the host runs its
own loop in a daemon thread, and every browser action is handed to it and awaited from the
caller's loop (cancelling the call cancels the action). Chromium starts on the first action,
with the guard proxy as its only route out; each session (the `ToolContext.session_id`) gets its
own context (cookies, storage, pages), closed by `close_session`, by the session's
`SessionScope`, by `close()` (the deck's), or at interpreter exit. Playwright's driver also kills
the browser if this process dies, so no Chromium outlives it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck.errors import ToolError
from tooldeck.tools.browser.executable import find_executable
from tooldeck.tools.browser.proxy import GuardProxy
from tooldeck.tools.web.guard import NetworkPolicy

if TYPE_CHECKING:
    from tooldeck.tools.web.config import WebConfig

T = TypeVar("T")
# Quiet, predictable Chromium: no background traffic, no first-run UI, no component updates.
BASE_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)
_CLOSE_WAIT_S = 15.0


class BrowserSession:
    """One session's browser context and the page its actions apply to."""

    def __init__(self, key: str, context: Any, page: Any) -> None:
        self.key = key
        self.context = context
        self.page = page
        self.lock = asyncio.Lock()

        def follow(new_page: Any) -> None:  # a link opening a new tab: act on that tab next
            self.page = new_page

        context.on("page", follow)


class BrowserHost:
    """Starts Chromium on demand and runs session actions on the browser's own loop."""

    def __init__(self, web: WebConfig) -> None:
        self.web = web
        self.policy = NetworkPolicy.of(web.allow_private_networks, web.allowed_networks)
        self.proxy = GuardProxy(self.policy)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._playwright: Any = None
        self._browser: Any = None
        self._launching: asyncio.Lock | None = None
        self._proxy_args: tuple[str, ...] = ()
        self._sessions: dict[str, BrowserSession] = {}
        self._closed = False
        ref = weakref.ref(self)

        def at_exit() -> None:
            host = ref()
            if host is not None:
                host.close()

        self._atexit = at_exit
        atexit.register(at_exit)

    # -- running actions ---------------------------------------------------------------------

    async def run(self, key: str, action: Callable[[BrowserSession], Awaitable[T]]) -> T:
        """Run `action` on session `key` (its context made on first use), from any event loop."""
        future = self._submit(self._in_session(key, action))
        return await asyncio.wrap_future(future)

    async def close_session(self, key: str) -> bool:
        """Close session `key`'s context; False when it had none."""
        if self._loop is None or self._closed:
            return False
        return await asyncio.wrap_future(self._submit(self._close_session(key)))

    def sessions(self) -> list[str]:
        return list(self._sessions)

    @property
    def running(self) -> bool:
        """Whether Chromium has been started (and not closed)."""
        return self._browser is not None

    def close(self) -> None:
        """Close every context and the browser, then stop the host's thread. Idempotent."""
        with self._start_lock:
            if self._closed:
                return
            self._closed = True
        atexit.unregister(self._atexit)
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(_CLOSE_WAIT_S)
        except (concurrent.futures.TimeoutError, RuntimeError):
            pass  # the driver's own watchdog kills Chromium when this process ends
        finally:
            loop.call_soon_threadsafe(loop.stop)
            if thread is not threading.current_thread():
                thread.join(_CLOSE_WAIT_S)

    # -- inside the host's loop --------------------------------------------------------------

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        with self._start_lock:
            if self._closed:
                coro.close()
                raise ToolError("the browser was closed with its deck", type="unavailable")
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=_serve_forever, args=(self._loop,), name="tooldeck-browser", daemon=True
                )
                self._thread.start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coro, loop)

    async def _in_session(self, key: str, action: Callable[[BrowserSession], Awaitable[T]]) -> T:
        session = self._sessions.get(key)
        if session is None or session.page.is_closed():
            browser = await self._started()
            context = await browser.new_context(
                viewport={"width": 1280, "height": 900}, accept_downloads=False, service_workers="block"
            )
            context.set_default_timeout(self.web.browser.timeout_s * 1000)
            context.set_default_navigation_timeout(self.web.browser.timeout_s * 1000)
            session = BrowserSession(key, context, await context.new_page())
            self._sessions[key] = session
        async with session.lock:
            return await action(session)

    async def _started(self) -> Any:
        if self._launching is None:
            self._launching = asyncio.Lock()
        async with self._launching:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            self._sessions.clear()  # contexts of a browser that went away are gone with it
            path, where = find_executable(self.web.browser)
            if path is None:
                raise ToolError(f"cannot start the browser: {where}", type="unavailable")
            from playwright.async_api import Error as PlaywrightError
            from playwright.async_api import async_playwright

            if self._playwright is None:
                self._playwright = await async_playwright().start()
                port = await self.proxy.start()
                self._proxy_args = (
                    f"--proxy-server=http://127.0.0.1:{port}",
                    "--proxy-bypass-list=<-loopback>",
                )
            args = [*BASE_ARGS, *self._proxy_args, *self.web.browser.args]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                args.append("--no-sandbox")  # Chromium refuses to run its sandbox as root
            try:
                self._browser = await self._playwright.chromium.launch(
                    executable_path=path, headless=self.web.browser.headless, args=args
                )
            except PlaywrightError as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ToolError(
                    f"cannot start the browser {path} ({where}): {first}", type="unavailable"
                ) from None
            return self._browser

    async def _close_session(self, key: str) -> bool:
        session = self._sessions.pop(key, None)
        if session is None:
            return False
        try:
            await session.context.close()
        except Exception:  # boundary: a context whose browser already died cannot be closed
            return True
        return True

    async def _shutdown(self) -> None:
        for key in list(self._sessions):
            await self._close_session(key)
        if self._browser is not None:
            with contextlib.suppress(Exception):  # boundary: a browser that already died
                await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
        await self.proxy.close()


def _serve_forever(loop: asyncio.AbstractEventLoop) -> None:
    """The host thread: run the loop until `close()` stops it, then close it."""
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
