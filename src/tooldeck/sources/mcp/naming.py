"""Names of MCP tools in the deck: `mcp__<server>__<tool>`, at most 64 characters, never clashing.

Characters a tool name may not hold become `_`. A name that would be too long is cut and ends
with a short hash of the full original, and two server tools that would end up with the same
name (`a.b` and `a_b`) are told apart the same way, so every name maps back to exactly one
server tool.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_NAME = 64
PREFIX = "mcp__"
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def server_prefix(server: str) -> str:
    return f"{PREFIX}{_BAD.sub('_', server)}__"


def deck_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Server tool name -> deck tool name, for all of one server's tools at once."""
    prefix = server_prefix(server)
    out: dict[str, str] = {}
    taken: set[str] = set()
    # Sorted, so the same tools always get the same names whatever order the server lists them in.
    for tool in sorted(set(tools)):
        plain = prefix + _BAD.sub("_", tool)
        name = plain if len(plain) <= MAX_NAME else _hashed(prefix, tool)
        n = 0
        while name in taken:
            n += 1
            name = _hashed(prefix, tool if n == 1 else f"{tool}#{n}")
        out[tool] = name
        taken.add(name)
    return out


def _hashed(prefix: str, tool: str) -> str:
    digest = hashlib.sha256(f"{prefix}{tool}".encode()).hexdigest()[:8]
    room = MAX_NAME - len(prefix) - len(digest) - 1
    return f"{prefix}{_BAD.sub('_', tool)[: max(room, 0)]}_{digest}"[:MAX_NAME]
