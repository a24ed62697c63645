"""The inspector's one-time token: every request carries it, or gets 401.

The token is new each run (unless `--token` gives one) and goes with the printed URL
(`?token=...`). A request may carry it in the query, in the cookie the first such visit sets
(so the page's own requests need not repeat it), or as `Authorization: Bearer <token>`; all
three are compared in constant time. The cookie is HttpOnly and SameSite=Strict: another site
cannot make the browser send it, so it cannot make the page's calls.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from tooldeck._utils.asgi import send_unauthorized
from tooldeck.errors import ConfigError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "tooldeck_inspect"
# A token shorter than this is refused: 16 random characters are out of reach of guessing.
MIN_TOKEN_CHARS = 16


def new_token() -> str:
    """A fresh token of 32 URL-safe characters."""
    return secrets.token_urlsafe(24)


def check_token(token: str) -> str:
    """`token` if it is long enough and fits in a URL and a cookie as it is; else ConfigError."""
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"--token is {len(token)} characters long: the token needs at least {MIN_TOKEN_CHARS}"
        )
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
    if not set(token) <= allowed:
        raise ConfigError("--token may hold only letters, digits and - _ . ~ (it goes in a URL and a cookie)")
    return token


def _given(scope: Scope) -> tuple[str, bool]:
    """The token a request carries (query, cookie or bearer header) and whether it came in the query."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if query.get("token"):
        return query["token"][-1], True
    headers = {k.lower(): v for k, v in scope.get("headers") or ()}
    bearer = headers.get(b"authorization", b"").decode("latin-1")
    if bearer.startswith("Bearer "):
        return bearer[len("Bearer ") :], False
    cookies: SimpleCookie = SimpleCookie()
    try:
        cookies.load(headers.get(b"cookie", b"").decode("latin-1"))
    except CookieError:  # a malformed Cookie header carries no token
        return "", False
    morsel = cookies.get(COOKIE)
    return (morsel.value if morsel is not None else ""), False


class TokenGate:
    """ASGI middleware: without the token, 401; with it in the query, the response sets the cookie."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given, in_query = _given(scope)
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token):
            await _unauthorized(send)
            return
        if not in_query:
            await self.app(scope, receive, send)
            return
        cookie = f"{COOKIE}={self.token.decode()}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def with_cookie(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie)]
            await send(message)

        await self.app(scope, receive, with_cookie)


async def _unauthorized(send: Send) -> None:
    await send_unauthorized(
        send, "unauthorized: open the URL tooldeck inspect printed (it carries ?token=...)"
    )
