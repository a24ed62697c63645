"""The inspector's web app: the page (plain HTML, CSS and JS shipped in the package) and the
JSON API, behind the token, on Starlette; served by uvicorn.

Every response says what the page may do (a Content-Security-Policy allowing only its own
script and style, no framing, no referrer), so even text that slipped past the page's escaping
could run nothing. The page builds its DOM with `textContent`, never HTML from data.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, MutableMapping
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tooldeck.inspect.api import InspectorApi, guarded
from tooldeck.inspect.auth import App, Receive, Scope, Send, TokenGate
from tooldeck.inspect.origin import OriginGate

STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def _static(name: str) -> bytes:
    return resources.files("tooldeck.inspect").joinpath("static", name).read_bytes()


def inspect_app(api: InspectorApi, *, token: str) -> App:
    """The ASGI app: `/` (the page), `/static/*`, `/api/*`; all behind `token`."""
    page = _static("index.html")
    files = {name: (_static(name), kind) for name, kind in STATIC.items()}

    async def index(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    async def static(request: Request) -> Response:
        found = files.get(request.path_params["name"])
        if found is None:
            return JSONResponse({"error": "no such file"}, 404)
        return Response(found[0], media_type=found[1])

    async def missing(request: Request) -> Response:
        return JSONResponse({"error": f"no API endpoint {request.url.path}"}, 404)

    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/api/info", guarded(api.info)),
        Route("/api/loadout", guarded(api.loadout)),
        Route("/api/tools/{name:path}", guarded(api.tool)),
        Route("/api/call", guarded(api.call), methods=["POST"]),
        Route("/api/approvals", guarded(api.approvals)),
        Route("/api/approvals/{id}", guarded(api.answer), methods=["POST"]),
        Route("/api/forms/{id}", guarded(api.answer_form), methods=["POST"]),
        Route("/api/mcp", guarded(api.mcp)),
        Route("/api/sessions", guarded(api.sessions)),
        Route("/api/sessions/{id}", guarded(api.session_detail)),
        Route("/api/sessions/{id}/decide", guarded(api.decide), methods=["POST"]),
        Route("/api/pending", guarded(api.pending)),
        Route("/api/audit", guarded(api.audit)),
        Route("/api/checkpoints", guarded(api.checkpoints)),
        Route("/api/{rest:path}", missing, methods=["GET", "POST"]),
    ]
    app = Starlette(routes=routes)
    # Another local page must not drive the API with the cookie its browser sends along.
    return OriginGate(TokenGate(_secured(app), token))


def _secured(app: App) -> App:
    """`app` with the security headers on every response."""

    async def secured(scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await app(scope, receive, with_headers if scope["type"] == "http" else send)

    return secured


async def serve_app(app: App, sock: socket.socket, *, ready: Callable[[int], None] | None = None) -> None:
    """Serve `app` on the bound `sock` until cancelled or signalled; `ready(port)` once listening."""
    import uvicorn

    # Calls waiting for an approval hold their requests open: shutdown waits for them briefly.
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2, access_log=False
    )
    web = uvicorn.Server(config)
    try:
        serving = asyncio.create_task(web.serve(sockets=[sock]))
        while not web.started and not serving.done():
            await asyncio.sleep(0.02)
        if web.started and ready is not None:
            ready(sock.getsockname()[1])
        await serving
    finally:
        with contextlib.suppress(OSError):
            sock.close()
