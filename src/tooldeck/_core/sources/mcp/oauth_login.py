"""`tooldeck mcp login NAME` / `logout NAME`: a person approves tooldeck at the server's
authorization server once; the tokens are kept for every later run.

The login connects to the server the way every run does, with one difference: when the server
asks for OAuth, the authorization URL goes to a person. A listener on 127.0.0.1 (any free port,
or `auth.redirect_port`) receives the browser's redirect with the code; the browser is opened
when there is one (else, or with `--no-open`, the URL is printed for the person to open). With
`TOOLDECK_OAUTH_FOLLOW_REDIRECT=1` the authorization URL is fetched instead and its redirect
read, for authorization servers that approve without a person (tests, CI).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from tooldeck._core.sources.mcp.oauth import REDIRECT_PATH, login_hint, store_for, who_approves, with_approver
from tooldeck._core.sources.mcp.oauth_redirect import redirect_result
from tooldeck.errors import SourceError

if TYPE_CHECKING:
    from tooldeck._core.sources.mcp.settings import ServerSpec

# Seconds a login waits for the person by default.
LOGIN_TIMEOUT_S = 300.0
_PAGE = "<!doctype html><meta charset=utf-8><title>tooldeck</title><p style='font:16px sans-serif'>{}</p>"


@dataclass(frozen=True, slots=True)
class LoginResult:
    """What a login did: whether the server asked for OAuth at all, and its tools afterwards."""

    server: str
    asked: bool
    tools: int


class Listener:
    """The loopback listener a browser's redirect comes back to (one login at a time)."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.AbstractServer | None = None
        self._got: asyncio.Future[tuple[str, str | None, str | None]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{REDIRECT_PATH}"

    async def start(self) -> None:
        self._got = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def wait(self, timeout: float) -> tuple[str, str | None, str | None]:
        assert self._got is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._got), timeout)
        except TimeoutError:
            raise SourceError(f"no answer from the browser within {timeout:g} s") from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10.0)
            while (await asyncio.wait_for(reader.readline(), 10.0)) not in (b"\r\n", b"\n", b""):
                pass  # the headers: nothing in them matters here
            parts = line.decode("latin-1").split()
            target = urlsplit(parts[1]) if len(parts) >= 2 and parts[0] == "GET" else None
            if target is None or target.path != REDIRECT_PATH:
                await _answer(writer, 404, "Not found.")
                return
            try:
                result = redirect_result(parse_qs(target.query))
            except SourceError as exc:
                await _answer(writer, 400, f"The login failed: {exc}. You can close this tab.")
                self._settle(exc)
                return
            await _answer(writer, 200, "Logged in. You can close this tab and go back to tooldeck.")
            self._settle(result)
        except (TimeoutError, OSError, UnicodeError):
            pass  # a stray or broken connection: the listener goes on waiting for the real one
        finally:
            writer.close()

    def _settle(self, outcome: tuple[str, str | None, str | None] | Exception) -> None:
        if self._got is None or self._got.done():
            return
        if isinstance(outcome, Exception):
            self._got.set_exception(outcome)
        else:
            self._got.set_result(outcome)


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    import html

    body = _PAGE.format(html.escape(text)).encode()
    head = f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
    head += (
        f"Content-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    with contextlib.suppress(OSError):
        await writer.drain()


def _has_browser() -> bool:
    return bool(os.environ.get("BROWSER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def _open(url: str) -> bool:
    import webbrowser

    return await asyncio.to_thread(webbrowser.open, url)


@contextlib.asynccontextmanager
async def _person(
    spec: ServerSpec, *, open_browser: bool, say: Callable[[str], None], timeout: float
) -> AsyncIterator[None]:
    """While inside, connections to `spec` send a login to the person (or follow it, when set)."""
    assert spec.auth is not None
    if who_approves("browser") == "follow":
        with with_approver(spec.name, "follow", None, None):
            yield
        return
    store = store_for(spec.name, spec.url or "", spec.auth)
    listener = Listener(spec.auth.redirect_port or _stored_port(store) or 0)
    try:
        await listener.start()
    except OSError:
        if spec.auth.redirect_port:
            raise SourceError(f"cannot listen on 127.0.0.1:{listener.port} (auth.redirect_port)") from None
        # The port the stored registration names is taken: register again on another one.
        record = store.load()
        record.client_info = None
        store.save(record)
        listener = Listener(0)
        await listener.start()

    async def show(url: str) -> tuple[str, str | None, str | None]:
        opened = open_browser and _has_browser() and await _open(url)
        say(("opened your browser at:\n  " if opened else "open this URL in a browser to log in:\n  ") + url)
        say(f"waiting for the login (up to {timeout:g} s)…")
        return await listener.wait(timeout)

    try:
        with with_approver(spec.name, "browser", show, listener.redirect_uri):
            yield
    finally:
        await listener.close()


def _stored_port(store: Any) -> int | None:
    uris = (store.load().client_info or {}).get("redirect_uris") or []
    if not uris:
        return None
    parts = urlsplit(str(uris[0]))
    return parts.port if parts.hostname == "127.0.0.1" and parts.path == REDIRECT_PATH else None


async def login(
    spec: ServerSpec,
    *,
    open_browser: bool = True,
    say: Callable[[str], None] = print,
    timeout: float = LOGIN_TIMEOUT_S,
) -> LoginResult:
    """Connect to `spec` with a person to approve its OAuth login; the tokens are stored."""
    from tooldeck._core.sources.mcp.connection import Connection, TransportFailure

    if spec.auth is None:
        raise SourceError(_no_oauth(spec))
    store = store_for(spec.name, spec.url or "", spec.auth)
    # A login starts afresh (the registration is kept): the tokens are whatever it brings.
    record = store.load()
    record.tokens = record.expires_at = None
    store.save(record)
    patient = dataclasses.replace(spec, connect_timeout=max(spec.connect_timeout, timeout + 30.0))
    async with _person(spec, open_browser=open_browser, say=say, timeout=timeout):
        conn = Connection(patient)
        try:
            await conn.open()
        except TransportFailure as exc:
            raise SourceError(str(exc)) from None
        try:
            tools = len(conn.tools)
        finally:
            await conn.close()
    return LoginResult(spec.name, asked=store.has_tokens(), tools=tools)


def logout(spec: ServerSpec) -> bool:
    """Forget the server's stored tokens and client registration; whether there were any."""
    if spec.auth is None:
        raise SourceError(_no_oauth(spec))
    return store_for(spec.name, spec.url or "", spec.auth).delete()


def _no_oauth(spec: ServerSpec) -> str:
    if spec.transport == "stdio":
        return f"MCP server {spec.name!r} runs locally (`command`); only remote servers (`url`) log in"
    return f"MCP server {spec.name!r} sends its own Authorization header (`headers`); it does not use OAuth"


__all__ = ["LoginResult", "login", "login_hint", "logout"]
