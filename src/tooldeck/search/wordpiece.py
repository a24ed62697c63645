"""BERT's uncased WordPiece tokenizer, written out so the semantic ranker needs no tokenizer library.

It reproduces what the `tokenizers` library does with the `tokenizer.json` that ships with
all-MiniLM-L6-v2 (a BertNormalizer with lowercasing and accent stripping, a BertPreTokenizer,
WordPiece with `##` continuations): text is cleaned of control characters, CJK ideographs and
punctuation become words of their own, and each word is split greedily into the longest
vocabulary pieces, or becomes `[UNK]` when it cannot be.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from pathlib import Path

MAX_WORD_CHARS = 100

# Blocks of CJK ideographs that BERT surrounds with spaces (it never splits Hangul or kana).
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # BERT treats every non-alphanumeric ASCII symbol as punctuation, "$" and "^" included.
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf", "Cn", "Co", "Cs")


def _normalize(text: str) -> str:
    """Clean, space out CJK ideographs, strip accents, lowercase (BertNormalizer's order)."""
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return stripped.lower()


def _split_words(text: str) -> list[str]:
    """Whitespace-separated words, each punctuation character a word of its own."""
    words: list[str] = []
    for chunk in text.split():
        current: list[str] = []
        for ch in chunk:
            if _is_punctuation(ch):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(ch)
            else:
                current.append(ch)
        if current:
            words.append("".join(current))
    return words


class WordPiece:
    """Turns text into vocabulary ids, `[CLS] ... [SEP]`, at most `max_length` ids in all."""

    def __init__(self, vocab: Mapping[str, int], *, max_length: int = 256) -> None:
        self._vocab = dict(vocab)
        self._unk = self._vocab["[UNK]"]
        self.cls_id = self._vocab["[CLS]"]
        self.sep_id = self._vocab["[SEP]"]
        self.max_length = max_length
        self._cache: dict[str, tuple[int, ...]] = {}

    @classmethod
    def from_vocab_file(cls, path: Path, *, max_length: int = 256) -> WordPiece:
        """Reads a BERT `vocab.txt`: one piece a line, its id the line number."""
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls({piece: i for i, piece in enumerate(lines)}, max_length=max_length)

    def _word_ids(self, word: str) -> tuple[int, ...]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids = self._pieces(word)
        if len(self._cache) < 200_000:
            self._cache[word] = ids
        return ids

    def _pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self._unk,)
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self._vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self._unk,)
            ids.append(found)
            start = end
        return tuple(ids)

    def encode(self, text: str, *, max_length: int | None = None) -> list[int]:
        """The ids of `text` with `[CLS]` and `[SEP]`, truncated to `max_length` (at most the
        tokenizer's own)."""
        limit = self.max_length if max_length is None else max(2, min(max_length, self.max_length))
        budget = limit - 2
        ids: list[int] = [self.cls_id]
        for word in _split_words(_normalize(text)):
            ids.extend(self._word_ids(word))
            if len(ids) > budget:
                break
        del ids[budget + 1 :]
        ids.append(self.sep_id)
        return ids
