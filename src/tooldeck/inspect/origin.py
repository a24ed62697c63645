"""The inspector answers only its own page: requests from another origin are refused.

The token's cookie is SameSite=Strict, but a browser treats every port of `127.0.0.1` as the
same site: a page served by any other local server (a dev server, a notebook) would have its
requests carry the cookie. So, before the token is looked at:

- every request must name this server in `Host` (127.0.0.1, localhost, [::1] or the address
  it was reached on, with its port): a page on a name that resolves here (DNS rebinding) is
  refused;
- a request that changes state (any method but GET, HEAD, OPTIONS) must come from the page's
  own origin: an `Origin` header, when sent, is `http://` + that Host, and `Sec-Fetch-Site`,
  when sent, is `same-origin`; and its body must be declared `application/json` (what a page
  of another origin cannot send without the browser asking this server first, which it never
  allows). A program that sends neither header (curl, a script with the token) is no browser
  page and passes.

Refusals are 403 with a JSON body naming the check.
"""

from __future__ import annotations

from tooldeck._utils.asgi import send_error
from tooldeck.inspect.auth import App, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class OriginGate:
    """ASGI middleware: the checks of the module docstring, in front of `app`."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = refusal(scope)
        if problem is not None:
            await send_error(send, 403, problem)
            return
        await self.app(scope, receive, send)


def refusal(scope: Scope) -> str | None:
    """Why this request may not reach the inspector, or None."""
    headers = _headers(scope)
    host = headers.get("host", "")
    if host not in expected_hosts(scope):
        return f"refused: the Host header {host!r} does not name this inspector"
    if scope.get("method", "GET").upper() in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and origin != f"http://{host}":
        return f"refused: a request from another origin ({origin!r}) may not change anything here"
    site = headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return f"refused: a request from another site (Sec-Fetch-Site: {site}) may not change anything here"
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        return f"refused: a request that changes anything must send Content-Type: application/json, not {media or 'none'!r}"
    return None


def expected_hosts(scope: Scope) -> set[str]:
    """The Host values that name this server: its loopback names and the address it was
    reached on, each with the port."""
    server = scope.get("server")
    if not server or server[1] is None:
        return set()
    address, port = server
    names = {*LOOPBACK_NAMES, f"[{address}]" if ":" in address else address}
    # On port 80 a browser sends the name alone.
    return {f"{name}:{port}" for name in names} | (names if port == 80 else set())


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
