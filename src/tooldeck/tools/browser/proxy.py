"""A local HTTP proxy that puts every browser connection through the address guard.

Chromium resolves names and follows redirects itself, so checking the URL a model asks for is
not enough: a page may redirect to `http://127.0.0.1/admin` or load a sub-resource from the
metadata service. The browser is therefore started with this proxy as its only way out
(loopback included): the proxy resolves each host with the `NetworkPolicy`, connects to the
checked address, and answers a refused one with `403` and a page saying why. HTTPS goes through
`CONNECT` tunnels, checked the same way before the tunnel opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import re
from collections import deque
from dataclasses import dataclass
from urllib.parse import urlsplit

from tooldeck.errors import ToolError
from tooldeck.tools.web.guard import AddressDenied, NetworkPolicy

DENIED_HEADER = "x-tooldeck-denied"
_MAX_HEAD = 64 * 1024
_HEAD_TIMEOUT_S = 30.0
_CONNECT_TIMEOUT_S = 15.0
_HOP_HEADERS = re.compile(
    rb"^(proxy-connection|proxy-authorization|connection|keep-alive):.*\r\n", re.I | re.M
)


@dataclass(frozen=True, slots=True)
class Denial:
    target: str
    reason: str
    seq: int


class GuardProxy:
    """Serves on 127.0.0.1 (a free port) in the running event loop."""

    def __init__(self, policy: NetworkPolicy) -> None:
        self.policy = policy
        self.denials: deque[Denial] = deque(maxlen=50)
        self._seq = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def seq(self) -> int:
        """A counter of refusals so far: compare before and after an action to see its refusals."""
        return self._seq

    def since(self, seq: int) -> list[Denial]:
        return [d for d in self.denials if d.seq > seq]

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
            await self._handle(head, reader, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, RuntimeError):
                writer.close()
            if task is not None:
                self._tasks.discard(task)

    async def _handle(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, _, rest = head.partition(b"\r\n")
        parts = line.decode("latin-1").split(" ")
        if len(parts) != 3 or len(head) > _MAX_HEAD:
            await _answer(writer, 400, "Bad Request", "malformed request")
            return
        method, target, version = parts
        if method == "CONNECT":
            host, _, port_text = target.rpartition(":")
            upstream = await self._open(writer, target, host, port_text)
            if upstream is not None:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await _splice(reader, writer, *upstream)
            return
        url = urlsplit(target)
        if url.scheme != "http" or not url.hostname:
            await _answer(writer, 400, "Bad Request", f"the proxy only forwards http:// URLs, got {target!r}")
            return
        upstream = await self._open(writer, target, url.hostname, str(url.port or 80))
        if upstream is None:
            return
        path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        upgrade = re.search(rb"^upgrade:", rest, re.I | re.M) is not None
        headers = rest if upgrade else _HOP_HEADERS.sub(b"", rest)
        connection = b"" if upgrade else b"Connection: close\r\n"
        up_reader, up_writer = upstream
        up_writer.write(f"{method} {path} {version}\r\n".encode("latin-1") + connection + headers)
        await _splice(reader, writer, up_reader, up_writer, close_response=not upgrade)

    async def _open(
        self, writer: asyncio.StreamWriter, target: str, host: str, port_text: str
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """A connection to a checked address of `host`, or None after answering the browser."""
        if not port_text.isdigit():
            await _answer(writer, 400, "Bad Request", f"bad port in {target!r}")
            return None
        try:
            addresses = await self.policy.resolve(host, int(port_text))
        except AddressDenied as exc:
            self._seq += 1
            self.denials.append(Denial(target, str(exc), self._seq))
            await _answer(writer, 403, "Forbidden", str(exc), denied=True)
            return None
        except ToolError as exc:
            await _answer(writer, 502, "Bad Gateway", str(exc))
            return None
        error: OSError | TimeoutError | None = None
        for address in addresses:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(address, int(port_text)), _CONNECT_TIMEOUT_S
                )
            except (OSError, TimeoutError) as exc:
                error = exc
        await _answer(writer, 502, "Bad Gateway", f"cannot connect to {host}: {error}")
        return None


async def _answer(
    writer: asyncio.StreamWriter, status: int, reason: str, message: str, *, denied: bool = False
) -> None:
    body = (
        f"<!doctype html><html><head><title>{status} {reason}</title></head>"
        f"<body><h1>{status} {reason}</h1><p>{html.escape(message)}</p></body></html>"
    ).encode()
    extra = f"{DENIED_HEADER}: 1\r\n" if denied else ""
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n{extra}"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()


async def _splice(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
    *,
    close_response: bool = False,
) -> None:
    """Copy bytes both ways until either side closes. With `close_response`, the response head
    says `Connection: close`, so the browser never sends a second request down a connection
    that was checked for the first one's host."""

    async def downstream() -> None:
        if close_response:
            head = await up_reader.readuntil(b"\r\n\r\n")
            line, _, rest = head.partition(b"\r\n")
            client_writer.write(line + b"\r\nConnection: close\r\n" + _HOP_HEADERS.sub(b"", rest))
        await _copy(up_reader, client_writer)

    tasks = [asyncio.ensure_future(_copy(client_reader, up_writer)), asyncio.ensure_future(downstream())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(ConnectionError, RuntimeError):
            up_writer.close()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
