"""Reading an open file descriptor."""

from __future__ import annotations

import os


def read_up_to(fd: int, limit: int) -> bytes:
    """What `fd` gives until its end or `limit` bytes, read in pieces of at most 1 MiB."""
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := os.read(fd, min(1 << 20, limit - size))):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
