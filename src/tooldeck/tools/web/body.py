"""Reading a response body within a byte limit, decompressing it ourselves in bounded steps.

The request asks only for encodings this module can bound (gzip and deflate). The compressed
stream is read raw and inflated at most `_STEP` bytes at a time (never more than the bytes left
under the limit, plus one), so a small compressed answer that expands to gigabytes (a
"compression bomb") costs at most the limit in memory before it is refused as too large.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from tooldeck.tools.web.failures import FetchError

if TYPE_CHECKING:
    import httpx

ACCEPT_ENCODING = "gzip, deflate"
_STEP = 64 * 1024
_GZIP_WBITS = 16 + zlib.MAX_WBITS


class _Inflater:
    """Inflates one gzip or deflate stream, producing at most `limit` bytes per call."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._wbits = _GZIP_WBITS if encoding == "gzip" else zlib.MAX_WBITS
        self._obj = zlib.decompressobj(self._wbits)
        self._started = False
        self._pending = b""

    def feed(self, data: bytes) -> None:
        self._pending += data

    def pull(self, limit: int) -> bytes:
        """Up to `limit` bytes of output from what was fed; b"" when it needs more input."""
        try:
            out = self._obj.decompress(self._pending, limit)
        except zlib.error as exc:
            if self.encoding == "deflate" and not self._started:
                # Some servers send raw deflate without the zlib header: retry once that way.
                self._started = True
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.pull(limit)
            raise FetchError("network", f"the {self.encoding} body is corrupt: {exc}") from None
        self._started = True
        self._pending = self._obj.unconsumed_tail
        if self._obj.eof and self._obj.unused_data and self.encoding == "gzip":
            # A gzip body may hold several members one after another.
            self._pending = self._obj.unused_data + self._pending
            self._obj = zlib.decompressobj(self._wbits)
        return out


def _encoding_of(response: httpx.Response) -> str:
    names = [e.strip().lower() for e in response.headers.get("content-encoding", "").split(",")]
    names = [n for n in names if n and n != "identity"]
    if not names:
        return ""
    if len(names) == 1 and names[0] in ("gzip", "x-gzip", "deflate"):
        return "gzip" if names[0] == "x-gzip" else names[0]
    raise FetchError(
        "unsupported_type",
        f"content encoding {', '.join(names)!s} is not supported (only gzip or deflate)",
    )


def _too_large(max_bytes: int) -> FetchError:
    return FetchError("too_large", f"the response is larger than the limit of {max_bytes} bytes")


async def read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    """The decoded body, or `FetchError("too_large")` as soon as it passes `max_bytes`."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise FetchError("too_large", f"the response is {int(declared)} bytes; the limit is {max_bytes}")
    encoding = _encoding_of(response)
    inflater = _Inflater(encoding) if encoding else None
    chunks: list[bytes] = []
    size = 0
    async for raw in response.aiter_raw():
        if inflater is None:
            pieces = [raw]
        else:
            inflater.feed(raw)
            pieces = _drain(inflater, max_bytes - size)
        for piece in pieces:
            size += len(piece)
            if size > max_bytes:
                raise _too_large(max_bytes)
            chunks.append(piece)
    return b"".join(chunks)


def _drain(inflater: _Inflater, room: int) -> list[bytes]:
    """Everything the fed input inflates to, stopping once more than `room` bytes came out."""
    pieces: list[bytes] = []
    while True:
        piece = inflater.pull(max(1, min(_STEP, room + 1)))
        if not piece:
            return pieces
        pieces.append(piece)
        room -= len(piece)
        if room < 0:
            return pieces
