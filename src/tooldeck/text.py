"""Text at the edges: what is printed for a person, stored, or sent must not break anything.

Tool output and model replies may hold control characters, terminal escape sequences and lone
surrogates (from a bad decode). Shown on a terminal they could retitle or recolour it; written
as UTF-8 they raise. These helpers make text safe for each edge without losing what it says.
"""

from __future__ import annotations

import json
import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def for_terminal(text: str) -> str:
    """`text` safe to print for a person: control characters and escape sequences shown as
    `\\x1b`-style escapes, lone surrogates replaced. Machine output (`--json`) keeps the raw text."""
    cleaned = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return utf8_safe(cleaned)


def utf8_safe(text: str) -> str:
    """`text` with anything that cannot be encoded as UTF-8 (lone surrogates) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)  # one U+FFFD for each
    return text


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """`value` as JSON text that can always be written as UTF-8 and reads back the same: text
    holding a lone surrogate (the session store keeps such text exactly) makes the whole
    document use ASCII escapes (`\\ud800`) instead of failing or being altered."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, indent=indent, default=str)  # ASCII escapes for all beyond ASCII
    return text
