"""Tool names every provider accepts: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, and no two alike.

OpenAI and Anthropic allow letters, digits, `_` and `-` up to 64 characters; Gemini also
allows `.` and `:` but must start with a letter or `_`. The intersection is tooldeck's own
tool-name rule. Names from elsewhere (MCP servers, benchmark catalogs: `acl_api.AclApi.add`,
`模型/run`, 80-character names) are mapped into it deterministically, and a collision gets a
short stable hash suffix rather than silently overwriting another tool.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_NAME = 64
SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]+")


def _digest(raw: str) -> str:
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:6]


def safe_name(raw: str, taken: set[str] | None = None) -> str:
    """A provider-safe name for `raw`, unique within `taken` (which it is added to)."""
    taken = taken if taken is not None else set()
    if SAFE_NAME.match(raw) and raw not in taken:
        taken.add(raw)
        return raw
    name = _BAD_CHARS.sub("_", raw).strip("_") or "tool"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "_" + name
    if len(name) > MAX_NAME or name in taken:
        # A hash of the original keeps two different originals apart after cutting.
        name = f"{name[: MAX_NAME - 7]}_{_digest(raw)}"
    n = 2
    base = name
    while name in taken:
        suffix = f"_{n}"
        name = base[: MAX_NAME - len(suffix)] + suffix
        n += 1
    taken.add(name)
    return name


def safe_names(raws: Iterable[str]) -> dict[str, str]:
    """Map each original name to a unique provider-safe name (in order; first come keeps its name)."""
    taken: set[str] = set()
    return {raw: safe_name(raw, taken) for raw in raws}
