"""Small ASGI answers shared by the HTTP servers (`serve`'s transport, the inspector page)."""

from __future__ import annotations

import json
from typing import Any


async def send_unauthorized(
    send: Any, error: str, *, extra_headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """A 401 with a JSON body `{"error": ERROR}`, never cached."""
    await send_error(send, 401, error, extra_headers=extra_headers)


async def send_error(
    send: Any, status: int, error: str, *, extra_headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """An error response with a JSON body `{"error": ERROR}`, never cached."""
    body = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                *extra_headers,
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
