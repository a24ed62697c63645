"""Running a `DeckServer` over stdio or streamable HTTP.

Streamable HTTP listens on 127.0.0.1 unless told otherwise; another interface needs a bearer
token, and with a token configured every request must carry `Authorization: Bearer <token>`
(compared in constant time) or is answered 401 before it reaches the MCP layer. A token shorter
than `MIN_TOKEN_CHARS` is refused (a short one is guessed by trying), and a port that cannot be
bound is a `ListenError` saying which, before anything is served.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from tooldeck._utils.asgi import send_unauthorized
from tooldeck.errors import ConfigError
from tooldeck.errors import ListenError as ListenError
from tooldeck.serve.server import DeckServer

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MCP_PATH = "/mcp"
# A bearer token shorter than this is refused: 16 random characters are out of reach of guessing.
MIN_TOKEN_CHARS = 16


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class BearerAuth:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await _unauthorized(send)
                return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    await send_unauthorized(
        send,
        "unauthorized: this server needs Authorization: Bearer <token>",
        extra_headers=((b"www-authenticate", b'Bearer realm="tooldeck"'),),
    )


async def serve_stdio(server: DeckServer) -> None:
    """Serve one client on this process's stdin/stdout until it disconnects."""
    from mcp.server.stdio import stdio_server

    watcher = asyncio.create_task(server.watch())
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.server.run(read_stream, write_stream, server.initialization_options())
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


def http_app(server: DeckServer, *, host: str, token: str | None) -> App:
    """The ASGI app: the SDK's streamable HTTP endpoint at /mcp, behind the token when given."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"serving on {host} exposes the tools beyond this machine: give a bearer token (--token)"
        )
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"the bearer token is {len(token)} character{'s' if len(token) != 1 else ''} long: it needs at "
            f"least {MIN_TOKEN_CHARS} (e.g. python -c 'import secrets; print(secrets.token_urlsafe(24))')"
        )
    from tooldeck.serve.event_store import RETRY_MS, event_store

    app: App = server.server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=host, event_store=event_store(), retry_interval=RETRY_MS
    )
    return BearerAuth(app, token) if token else app


async def serve_http(
    server: DeckServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp until cancelled (or the process is signalled)."""
    import uvicorn

    app = http_app(server, host=host, token=token)
    # Bound here, not by uvicorn: it would log the failure its own way and exit the process.
    sock = listen_socket(host, port)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)
    watcher = asyncio.create_task(server.watch())
    try:
        serving = asyncio.create_task(web.serve(sockets=[sock]))
        while not web.started and not serving.done():
            await asyncio.sleep(0.02)
        if web.started and ready is not None:
            ready(f"http://{_shown(host)}:{sock.getsockname()[1]}{MCP_PATH}")
        await serving
    finally:
        sock.close()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


def listen_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to host:port (port 0: a free one); ListenError saying why not."""
    address = host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
    except OSError as exc:
        sock.close()
        why = exc.strerror or str(exc)
        raise ListenError(f"cannot listen on {_shown(host)}:{port}: {why}") from None
    sock.set_inheritable(False)
    return sock


def _shown(host: str) -> str:
    return f"[{host.strip('[]')}]" if ":" in host else host
