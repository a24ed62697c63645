"""One live MCP session with one server: connect, list tools, call, notice when it is gone.

A `Connection` runs as a task on the MCP loop (an MCP session must be opened and closed in one
task). The session is the SDK's `Client`, which speaks both protocol revisions: it probes
`server/discover` (2026-07-28) and falls back to the `initialize` handshake for older servers,
stamps each request's `_meta` and HTTP headers, caches list results as the server's `ttlMs` and
`cacheScope` allow, and drives `input_required` round trips. What the server asks back goes
through `asks.Asks` to the call that caused it. Everything the server sends passes a watch first, so the connection knows when the
transport ended (the child exited, the HTTP stream broke) and why, and a server that answers
with something that is not JSON-RPC fails the connect at once instead of hanging it. A failure
to reach the server is a `TransportFailure`; an error the server reports for a request is an
`McpRequestError` (the server is fine, the request was not).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from tooldeck._core.sources.mcp.asks import Asks, Caller
from tooldeck._core.sources.mcp.listing import (
    ListCache,
    ListingError,
    announces_changes,
    follow_changes,
    list_all_tools,
)
from tooldeck._core.sources.mcp.oauth import connection_auth, login_reason
from tooldeck._core.sources.mcp.sdk import sdk_loaded
from tooldeck._core.sources.mcp.settings import ServerSpec
from tooldeck._core.sources.mcp.stdio import ChildInfo, stdio_transport

if TYPE_CHECKING:
    import mcp_types

CLIENT_NAME = "tooldeck"


class TransportFailure(Exception):
    """The server could not be reached, or the connection broke."""


class McpRequestError(Exception):
    """The server answered a request with an error (or an answer that breaks its own contract)."""


class Connection:
    """A session with a server, from `open()` to `close()`."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        on_tools_changed: Callable[[], None] | None = None,
        list_cache: ListCache | None = None,
    ) -> None:
        self.spec = spec
        self._list_cache = list_cache
        self.child = ChildInfo() if spec.transport == "stdio" else None
        self.tools: list[mcp_types.Tool] = []
        self.reason: str | None = None
        self.session: Any = None  # the SDK's Client, once it is connected
        self.asks = Asks(spec.name, sampling=spec.sampling == "allow", roots=spec.roots)
        self.phase = "starting the server"
        self._on_tools_changed = on_tools_changed
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.closed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        # The last HTTP error answer of a remote server ("HTTP 401 Unauthorized: ..."), which the
        # SDK reduces to a generic error.
        self.http_error: str | None = None
        # The OAuth of a remote server (see `oauth`), made with the transport.
        self.auth: Any = None

    @property
    def alive(self) -> bool:
        return self.session is not None and not self.closed.is_set()

    async def open(self) -> None:
        """Connect, initialize and list the tools within the connect timeout; TransportFailure if not."""
        self._task = asyncio.get_running_loop().create_task(self._run())
        # The first time, importing the SDK takes a while (the server starts meanwhile): the
        # connect timeout starts after it, since the import is not the server's fault.
        await sdk_loaded()
        ready = asyncio.ensure_future(self._ready.wait())
        closed = asyncio.ensure_future(self.closed.wait())
        try:
            await asyncio.wait(
                {ready, closed}, timeout=self.spec.connect_timeout, return_when="FIRST_COMPLETED"
            )
        finally:
            ready.cancel()
            closed.cancel()
        if self._ready.is_set() and not self.closed.is_set():
            return
        if self.reason is None:
            self.reason = f"timed out: no answer while {self.phase} within {self.spec.connect_timeout:g} s"
        self.reason = login_reason(self.auth) or self.reason
        await self.close()
        raise TransportFailure(self.reason)

    async def close(self) -> None:
        """End the session (and the server process); a session still connecting is cancelled."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if not self._ready.is_set():
            task.cancel()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), 10.0)
        if not task.done():
            task.cancel()

    async def _run(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                if self.spec.transport != "stdio":
                    await sdk_loaded()  # a stdio server is started first, while the SDK loads
                read, write = await stack.enter_async_context(self._transport())
                await sdk_loaded()
                self.phase = "initializing"
                session = await stack.enter_async_context(self._client(_Watched(read, self), write))
                if self.child is not None:
                    self.child.answered = True
                self.phase = "listing tools"
                self.tools = await list_all_tools(session)
                self.session = session
                self.phase = "ready"
                self._ready.set()
                if self._on_tools_changed is not None and announces_changes(session):
                    # Entered and left in a task of its own; it ends with the session.
                    following = asyncio.ensure_future(
                        follow_changes(session, self.spec.name, self._on_tools_changed)
                    )
                    stack.push_async_callback(_stopped, following)
                await self._stop.wait()
        except Exception as exc:  # boundary: whatever broke the session is its reason, reported
            if self.reason is None:
                self.reason = describe(exc)
            if self.http_error is not None:
                self.reason = self.http_error
        finally:
            self.session = None
            if self.child is not None:
                self.child.stderr.close()
            self.closed.set()

    def _client(self, read: Any, write: Any) -> Any:
        """The SDK's client over the transport's streams, answering the server through `asks`."""
        from mcp.client.client import Client
        from mcp_types import Implementation

        asks = self.asks
        cache = {"cache": self._list_cache.config(self.spec)} if self._list_cache is not None else {}
        return Client(
            _Streams(read, write),
            mode=self.spec.protocol,
            message_handler=self._on_message,
            client_info=Implementation(name=CLIENT_NAME, version=_version()),
            elicitation_callback=asks.elicit,
            list_roots_callback=asks.list_roots if asks.roots else None,
            sampling_callback=asks.sample if asks.sampling else None,
            logging_callback=asks.log,
            **cache,
        )

    def _transport(self) -> contextlib.AbstractAsyncContextManager[tuple[Any, Any]]:
        spec = self.spec
        if spec.transport == "stdio":
            assert self.child is not None
            return stdio_transport(spec, self.child)
        if spec.transport == "sse":
            from mcp.client.sse import sse_client

            def client(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
                return http_client(spec, self._note_http_error, headers=headers, timeout=timeout, auth=auth)

            self.auth = connection_auth(spec.name, spec.url, spec.auth)
            return sse_client(
                spec.url or "",
                auth=self.auth,
                headers=dict(spec.headers),
                timeout=spec.connect_timeout,
                httpx_client_factory=client,
            )
        self.auth = connection_auth(spec.name, spec.url, spec.auth)
        return _http_transport(spec, http_client(spec, self._note_http_error, auth=self.auth))

    async def _note_http_error(self, response: Any) -> None:
        """Keep an error answer, so a failure can say what the server said."""
        if response.status_code >= 400:
            await response.aread()
            body = " ".join(response.text.split())[:200]
            self.http_error = f"HTTP {response.status_code} {response.reason_phrase}" + (
                f": {body}" if body else ""
            )

    def _garbage_first(self, item: Exception) -> None:
        self.reason = f"the server sent something that is not MCP: {_garbage(item)}"
        self._stop.set()

    def _ended(self) -> None:
        if self.reason is None and not self._stop.is_set():
            self.reason = self.http_error or self._lost()
        self._stop.set()

    def _lost(self) -> str:
        if self.child is not None:
            return f"the server process {self.child.describe_exit()}"
        return "the server closed the connection"

    async def _on_message(self, message: Any) -> None:
        from mcp_types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification) and self._on_tools_changed is not None:
            self._on_tools_changed()

    async def call(
        self, name: str, arguments: dict[str, Any], caller: Caller | None = None
    ) -> mcp_types.CallToolResult:
        """Call a server tool; TransportFailure if the server cannot be reached, McpRequestError if
        it refuses. What the server asks meanwhile (and its progress) goes to `caller`."""
        session = self.session
        if session is None or self.closed.is_set():
            raise TransportFailure(self.reason or "not connected")
        try:
            with self.asks.calling(caller):
                result: mcp_types.CallToolResult = await session.call_tool(
                    name, arguments, progress_callback=self.asks.progress(caller)
                )
        except Exception as exc:  # boundary: sorted into the two failures a caller can tell apart
            raise await self._failure(exc) from None
        return result

    async def _failure(self, exc: Exception) -> TransportFailure | McpRequestError:
        """What a request that raised `exc` means (the SDK is imported here, off the path of every call)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        needs_login = login_reason(self.auth)
        if needs_login is not None:  # the request was stopped for want of a login: say what to run
            return TransportFailure(needs_login)
        if isinstance(exc, MCPError):
            if exc.code == CONNECTION_CLOSED or self.closed.is_set() or self._stop.is_set():
                await self._settle()
                return TransportFailure(self.reason or exc.message)
            return McpRequestError(f"the server answered with error {exc.code}: {exc.message}")
        if isinstance(exc, RuntimeError):  # the SDK's word for a result that breaks the tool's output schema
            return McpRequestError(str(exc))
        if _answered_badly(exc):
            return McpRequestError(f"the server's answer was not valid MCP: {describe(exc)}")
        # Any other failure of the request is the transport's.
        await self._settle()
        return TransportFailure(self.reason or describe(exc))

    async def refresh_tools(self) -> list[mcp_types.Tool]:
        if self.session is None:
            raise TransportFailure(self.reason or "not connected")
        try:
            self.tools = await list_all_tools(self.session, fresh=True)
        except ListingError as exc:
            raise McpRequestError(str(exc)) from None
        return self.tools

    async def _settle(self) -> None:
        """Let the watch record why the stream ended, when it is ending, before reporting it."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._stop.wait(), 1.0)


class _Watched:
    """The server's message stream as the session reads it, each item looked at on the way.

    A wrapper rather than a task that forwards into another stream: the session's read loop
    takes every message straight from the transport, with no extra task switch per message (the
    session only iterates the stream and enters it as an async context manager). Something that
    is not JSON-RPC before the handshake is over ends the stream, with the reason; later, a
    stray line is skipped. The end of the stream is noted as the reason the connection ended.
    """

    def __init__(self, read: Any, conn: Connection) -> None:
        import anyio

        self._read = read
        self._conn = conn
        self._done = False
        self._ends = (anyio.EndOfStream, anyio.ClosedResourceError)

    @property
    def last_context(self) -> Any:
        # A transport stream that carries each sender's contextvars hands them on this way.
        return getattr(self._read, "last_context", None)

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        conn = self._conn
        while not self._done:
            try:
                item = await self._read.receive()
            except self._ends:
                self._done = True
                conn._ended()
                break
            if not isinstance(item, Exception):
                return item
            if not conn._ready.is_set():
                self._done = True
                conn._garbage_first(item)
        raise StopAsyncIteration

    async def receive(self) -> Any:
        import anyio

        try:
            return await self.__anext__()
        except StopAsyncIteration:
            raise anyio.EndOfStream from None

    async def aclose(self) -> None:
        self._done = True
        await self._read.aclose()

    async def __aenter__(self) -> _Watched:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Streams:
    """Streams already open, as the transport the SDK's `Client` enters."""

    def __init__(self, read: Any, write: Any) -> None:
        self._streams = (read, write)

    async def __aenter__(self) -> tuple[Any, Any]:
        return self._streams

    async def __aexit__(self, *exc: object) -> None:
        return None


def http_client(
    spec: ServerSpec,
    on_response: Callable[[Any], Any],
    *,
    headers: dict[str, str] | None = None,
    timeout: Any = None,
    auth: Any = None,
) -> Any:
    """The HTTP client every request to a remote server goes through (streamable HTTP and SSE):
    the server's headers, the SDK's timeouts, its OAuth (`auth`, an httpx2.Auth), and
    `on_response` seeing each answer."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    sent = dict(spec.headers) if headers is None else headers
    client = create_mcp_http_client(headers=sent, timeout=timeout, auth=auth)
    client.event_hooks["response"].append(on_response)
    return client


async def _stopped(task: asyncio.Future[None]) -> None:
    task.cancel()
    # Boundary: a listen stream torn down with its session may fail in any way; it is over.
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def _answered_badly(exc: Exception) -> bool:
    """A result that does not parse as the negotiated revision's (pydantic's ValidationError)."""
    return type(exc).__name__ == "ValidationError" and type(exc).__module__.startswith("pydantic")


@contextlib.asynccontextmanager
async def _http_transport(spec: ServerSpec, client: Any) -> AsyncIterator[tuple[Any, Any]]:
    from mcp.client.streamable_http import streamable_http_client

    async with client, streamable_http_client(spec.url or "", http_client=client) as (read, write):
        yield read, write


def describe(exc: BaseException) -> str:
    """An exception as one line for a person (exception groups are unwrapped to their first cause)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    text = str(exc).strip() or type(exc).__name__
    first = text.splitlines()[0]
    return first if type(exc).__name__ in first else f"{type(exc).__name__}: {first}"


def _garbage(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):  # boundary: best effort at quoting what was sent
            found = errors()[0].get("input")
            if isinstance(found, str | bytes):
                text = found.decode("utf-8", "replace") if isinstance(found, bytes) else found
                return repr(text.strip()[:120])
    return describe(exc)


def _version() -> str:
    from tooldeck._utils.version import __version__

    return str(__version__)
