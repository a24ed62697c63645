"""The providers' prompt caches, simulated, so the scripted server reports cache reads and writes
as each provider does and tests can prove that a client parses and sums them.

A prompt is read as a sequence of pieces in the order the provider caches it: the tools, then
the system prompt, then the conversation (each tool, each message, or each Anthropic content
block is one piece; a token is four characters of a piece's JSON). A prefix that ends at a
piece's end can be cached.

- OpenAI (Chat Completions, Responses, and OpenAI-compatible servers such as Gemini's):
  automatic. Every request's prefixes of at least `min_tokens` are cached (the real cache
  starts at 1,024 and grows in steps of 128); a later request reads its longest cached
  prefix. The usage reports `cached_tokens` (read) and `cache_write_tokens` (the part of the
  prompt beyond what was read that this request cached) inside `prompt_tokens` /
  `input_tokens`.
- Anthropic: explicit. Only a prefix ending at a piece with `cache_control` (a breakpoint; a
  top-level `cache_control` puts one on the last piece) is written, and at least `min_tokens`
  long. A breakpoint reads the longest cached prefix ending at it or at one of the 20 pieces
  before it. The usage reports `cache_read_input_tokens` and `cache_creation_input_tokens`
  beside an `input_tokens` that leaves both out.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, NamedTuple

# Anthropic looks for a cached prefix this many pieces back from a breakpoint.
LOOKBACK = 20
# The most prefixes kept; the least recently used go first (a provider's entries expire too), so
# a long benchmark's server does not grow without end.
MAX_ENTRIES = 50_000


class OpenAIBill(NamedTuple):
    cached_tokens: int
    cache_write_tokens: int


class AnthropicBill(NamedTuple):
    input_tokens: int  # the part of the prompt neither read from nor written to the cache
    cache_read_input_tokens: int
    cache_creation_input_tokens: int


class _Piece(NamedTuple):
    key: str  # a hash of the prompt up to and including this piece
    tokens: int  # the prompt's length up to and including this piece
    breakpoint: bool


def _without_marks(piece: Any) -> Any:
    if isinstance(piece, dict):
        return {k: v for k, v in piece.items() if k != "cache_control"}
    return piece


def _pieces(parts: list[Any]) -> list[_Piece]:
    digest = hashlib.sha256()
    chars = 0
    out = []
    for part in parts:
        text = json.dumps(_without_marks(part))
        digest.update(text.encode())
        chars += len(text)
        marked = isinstance(part, dict) and "cache_control" in part
        out.append(_Piece(digest.hexdigest(), chars // 4, marked))
    return out


def _openai_parts(kind: str, body: dict[str, Any]) -> list[Any]:
    parts: list[Any] = list(body.get("tools") or [])
    if kind == "chat":
        return parts + list(body.get("messages") or [])
    if body.get("instructions"):
        parts.append({"instructions": body["instructions"]})
    items = body.get("input")
    return parts + (list(items) if isinstance(items, list) else [{"input": items}])


def _anthropic_parts(body: dict[str, Any]) -> list[Any]:
    parts: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    parts += system if isinstance(system, list) else [{"system": system}] if system else []
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        # The role goes with each block, so the same block said by another role is another prefix.
        parts += [{**block, "role": message.get("role")} for block in blocks]
    return parts


class PromptCache:
    """What a provider has cached for the prompts it was sent (one per scripted server)."""

    def __init__(self, *, min_tokens: int = 1024) -> None:
        self.min_tokens = min_tokens
        self._cached: OrderedDict[str, int] = OrderedDict()  # prefix hash -> its tokens
        self._lock = threading.Lock()

    def _hit(self, piece: _Piece) -> int:
        """The tokens of `piece`'s prefix when it is cached (0 when not), kept as just used."""
        if piece.key not in self._cached:
            return 0
        self._cached.move_to_end(piece.key)
        return piece.tokens

    def _store(self, piece: _Piece) -> bool:
        """Cache `piece`'s prefix; False when it was cached already or is too short."""
        if piece.tokens < self.min_tokens or piece.key in self._cached:
            return False
        self._cached[piece.key] = piece.tokens
        if len(self._cached) > MAX_ENTRIES:
            self._cached.popitem(last=False)
        return True

    def openai(self, kind: str, body: dict[str, Any]) -> OpenAIBill:
        """The tokens of `body`'s prompt read from and written to the cache; caches its prefixes."""
        pieces = _pieces(_openai_parts(kind, body))
        with self._lock:
            read = max((self._hit(p) for p in pieces), default=0)
            stored = [p.tokens for p in pieces if self._store(p)]
        return OpenAIBill(read, max([0] + [t - read for t in stored]))

    def anthropic(self, body: dict[str, Any], total: int) -> AnthropicBill:
        """How Anthropic bills `body`'s prompt of `total` tokens; caches it at its breakpoints."""
        pieces = _pieces(_anthropic_parts(body))
        if body.get("cache_control") and pieces:
            pieces[-1] = pieces[-1]._replace(breakpoint=True)
        marks = [i for i, p in enumerate(pieces) if p.breakpoint]
        with self._lock:
            read = 0
            for i in marks:
                read = max([read] + [self._hit(p) for p in pieces[max(0, i - LOOKBACK) : i + 1]])
            stored = [pieces[i].tokens for i in marks if self._store(pieces[i])]
            written = max([0] + [t - read for t in stored])
        total = max(total, read + written)
        return AnthropicBill(total - read - written, read, written)
