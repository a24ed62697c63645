"""The guard proxy the browser goes through, spoken to directly over a socket."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from support.web_pages import WebSite
from tooldeck.tools.browser.proxy import GuardProxy
from tooldeck.tools.web.guard import NetworkPolicy

T = TypeVar("T")


async def exchange(port: int, *messages: bytes) -> bytes:
    """Send each message in turn (reading what comes back after each) and return it all."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    received = b""
    try:
        for message in messages:
            writer.write(message)
            await writer.drain()
            if message.startswith(b"CONNECT"):
                received += await reader.readuntil(b"\r\n\r\n")
                if b" 200 " not in received.split(b"\r\n")[0]:
                    received += await reader.read()
                    return received
        received += await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    return received


def with_proxy(scenario: Callable[[GuardProxy, int], Awaitable[T]]) -> T:
    """Run `scenario(proxy, port)` against a proxy that allows 127.0.0.1 only."""

    async def main() -> T:
        proxy = GuardProxy(NetworkPolicy.of(False, ["127.0.0.1/32"]))
        port = await proxy.start()
        try:
            return await scenario(proxy, port)
        finally:
            await proxy.close()

    return asyncio.run(main())


def test_plain_http_is_forwarded_to_a_checked_address_one_request_per_connection(site: WebSite) -> None:
    host = site.url.removeprefix("http://")

    async def scenario(proxy: GuardProxy, port: int) -> bytes:
        request = f"GET {site.url}/plain HTTP/1.1\r\nHost: {host}\r\nProxy-Connection: keep-alive\r\n\r\n"
        return await exchange(port, request.encode())

    answer = with_proxy(scenario)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200") and b"Connection: close" in head
    assert body == b"Plain notes: the harbour opens at six.\n"
    path, headers = site.requests[-1]
    assert path == "/plain" and "proxy-connection" not in headers and headers["connection"] == "close"


def test_connect_tunnels_are_checked_before_they_open(sites: tuple[WebSite, WebSite]) -> None:
    near, far = sites
    before = len(far.requests)

    async def scenario(proxy: GuardProxy, port: int) -> tuple[bytes, bytes, list[str]]:
        near_host, far_host = near.url.removeprefix("http://"), far.url.removeprefix("http://")
        inner = f"GET /plain HTTP/1.0\r\nHost: {near_host}\r\n\r\n".encode()
        opened = await exchange(port, f"CONNECT {near_host} HTTP/1.1\r\n\r\n".encode(), inner)
        refused = await exchange(port, f"CONNECT {far_host} HTTP/1.1\r\n\r\n".encode())
        return opened, refused, [d.reason for d in proxy.since(0)]

    opened, refused, reasons = with_proxy(scenario)
    assert opened.startswith(b"HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.0 200")
    assert opened.endswith(b"Plain notes: the harbour opens at six.\n")
    assert refused.startswith(b"HTTP/1.1 403 Forbidden") and b"x-tooldeck-denied: 1" in refused
    assert b"127.0.0.2 is a loopback address" in refused
    assert len(reasons) == 1 and "refused to connect to 127.0.0.2" in reasons[0]
    assert len(far.requests) == before


def test_what_the_proxy_does_not_forward_is_a_clear_answer() -> None:
    async def scenario(proxy: GuardProxy, port: int) -> list[bytes]:
        return [
            await exchange(port, b"nonsense\r\n\r\n"),
            await exchange(port, b"GET ftp://example.org/ HTTP/1.1\r\n\r\n"),
            await exchange(port, b"CONNECT example.org:https HTTP/1.1\r\n\r\n"),
        ]

    answers = with_proxy(scenario)
    assert [a.split(b"\r\n")[0] for a in answers] == [b"HTTP/1.1 400 Bad Request"] * 3
    assert b"only forwards http:// URLs" in answers[1] and b"bad port" in answers[2]
