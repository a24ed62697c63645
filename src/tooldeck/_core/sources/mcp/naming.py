"""Names of MCP tools in the deck: `mcp__<server>__<tool>`, at most 64 characters, never clashing.

Characters a tool name may not hold become `_`. A name that would be too long is cut and ends
with a short hash of the full original, and server tools whose changed names would clash with
another's (`a.b` and `a b`, or `a.b` and a tool named `a_b` exactly) are told apart the same
way, so every name maps back to exactly one server tool; a name that needed no change is kept.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

MAX_NAME = 64
PREFIX = "mcp__"
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def server_prefix(server: str) -> str:
    return f"{PREFIX}{_BAD.sub('_', server)}__"


def deck_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Server tool name -> deck tool name, for all of one server's tools at once.

    A tool whose name needs no change keeps it. A name that had to change (a character replaced,
    or cut to fit) is hashed when another tool has that name or changes to it too, so `a_b` stays
    `a_b` while `a.b` and `a b` are told apart by their hashes. The result depends only on the
    set of names, never on the order the server lists them in.
    """
    prefix = server_prefix(server)
    wanted = sorted(set(tools))
    plain = {tool: prefix + _BAD.sub("_", tool) for tool in wanted}
    exact = {tool for tool in wanted if plain[tool] == prefix + tool and len(plain[tool]) <= MAX_NAME}
    out = {tool: plain[tool] for tool in exact}
    taken = set(out.values())
    changed = [tool for tool in wanted if tool not in exact]
    shared = Counter(plain[tool] for tool in changed)
    for tool in changed:
        name = plain[tool]
        if len(name) > MAX_NAME or shared[name] > 1 or name in taken:
            name = _hashed(prefix, tool)
        n = 1
        while name in taken:
            n += 1
            name = _hashed(prefix, f"{tool}#{n}")
        out[tool] = name
        taken.add(name)
    return out


def _hashed(prefix: str, tool: str) -> str:
    digest = hashlib.sha256(f"{prefix}{tool}".encode()).hexdigest()[:8]
    room = MAX_NAME - len(prefix) - len(digest) - 1
    return f"{prefix}{_BAD.sub('_', tool)[: max(room, 0)]}_{digest}"[:MAX_NAME]
