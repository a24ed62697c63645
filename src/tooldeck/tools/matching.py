"""Where `old_string` is in a file: a chain of match strategies, strictest first.

The file text and `old_string` arrive with line endings already unified to `\\n` (the caller
maps positions back to the file's own bytes). Each strategy returns every place it matches;
the caller stops at the first strategy that matches anything and requires a single match
there (unless replace_all), so a looser strategy never overrides a stricter one.

    exact                 as written
    line_endings          as written once `\\r\\n` and `\\n` are treated alike (a CRLF file)
    line_trimmed          whole lines equal after trimming each line's whitespace
    whitespace_normalized runs of spaces/tabs compared as one space (may match inside a line)
    escape_normalized     `\\n`, `\\t`, `\\r` typed as two characters in old_string
    unicode_normalized    typographic characters (curly quotes, dashes, minus, ellipsis, no-break
                          and ideographic spaces) equal to their ASCII look-alikes
    block_anchor          (3+ lines) first and last lines equal, every middle line similar
    context_aware         (2+ lines) every line similar and at least one equal

The last two are similarity matches: never used for replace_all, and every line must be close
to its counterpart, so a block that is half something else is not taken for the one meant.
Hermes's `indentation_flexible` and `trimmed_boundary` are not separate steps here: whatever
they match, `line_trimmed` (which trims every line) matches first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

BLOCK_LINE_RATIO = 0.6  # block_anchor: each middle line at least this similar
CONTEXT_LINE_RATIO = 0.8  # context_aware: each line at least this similar
MAX_CANDIDATES = 2000  # similarity windows examined at most (anchored, so rarely near this)

# Typographic characters and the ASCII text a model types for them.
UNICODE_TO_ASCII = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-", "\u2014": "--",
    "\u2026": "...", "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ",
    "\u2006": " ", "\u2007": " ", "\u2008": " ", "\u2009": " ", "\u200a": " ", "\u202f": " ",
    "\u205f": " ", "\u3000": " ",
}  # fmt: skip
_UNICODE_CHARS = re.compile("[" + "".join(UNICODE_TO_ASCII) + "]")
_SPACES = "[ \t" + "".join(k for k, v in UNICODE_TO_ASCII.items() if v == " ") + "]"
_ALTERNATIVES = {
    "'": "['\u2018\u2019\u201a\u201b\u2032]",
    '"': '["\u201c\u201d\u201e\u201f\u2033]',
    "-": "[-\u2010\u2011\u2012\u2013\u2212]",
    "--": "(?:\u2014|[-\u2010\u2011\u2012\u2013\u2212]{2})",
    "...": "(?:\u2026|\\.\\.\\.)",
    " ": _SPACES,
}


@dataclass(frozen=True, slots=True)
class Span:
    """One match: `start`/`end` offsets in the unified text; `lines` is the file line range
    [first, last) when the match is whole lines aligned one to one with old_string's lines."""

    start: int
    end: int
    lines: tuple[int, int] | None = None
    score: float = 1.0


class Text:
    """A text prepared lazily for the strategies: its lines, where each starts, trimmed forms."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def starts(self) -> list[int]:
        return [0, *accumulate(len(line) + 1 for line in self.lines[:-1])]

    @cached_property
    def stripped(self) -> list[str]:
        return [line.strip() for line in self.lines]

    @cached_property
    def folded(self) -> list[str]:
        """Lines stripped and with typographic characters as ASCII (for similarity strategies)."""
        return [fold(line) for line in self.stripped]

    @cached_property
    def folded_index(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = {}
        for number, line in enumerate(self.folded):
            if line:
                index.setdefault(line, []).append(number)
        return index

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset)

    def lines_of(self, offsets: list[int]) -> list[int]:
        """0-based line numbers of ascending offsets, counted in one pass."""
        out, seen, line = [], 0, 0
        for offset in offsets:
            line += self.text.count("\n", seen, offset)
            seen = offset
            out.append(line)
        return out

    def lines_trimmed_to(self, wanted: str) -> list[tuple[int, int]]:
        """(number, start offset) of the lines equal to `wanted` (non-blank, trimmed) once
        trimmed; found with `str.find`, so a long file costs a scan in C, not a loop over lines."""
        text, out, start, seen, line = self.text, [], 0, 0, 0
        while (at := text.find(wanted, start)) != -1:
            begin = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at + len(wanted))
            end = len(text) if end == -1 else end
            if not text[begin:at].strip() and not text[at + len(wanted) : end].strip():
                line += text.count("\n", seen, begin)
                seen = begin
                out.append((line, begin))
                start = end + 1
            else:
                start = at + 1
        return out

    def window(self, begin: int, back: int, forward: int, *, newline: bool) -> Span | None:
        """The span from `back` lines above the line starting at `begin` to the end of the
        `forward`-th line from it (None if the text is shorter), found without splitting it."""
        text, start, end = self.text, begin, begin
        for _ in range(back):
            if start == 0:
                return None
            start = text.rfind("\n", 0, start - 1) + 1
        for index in range(forward):
            end = text.find("\n", end if index == 0 else end + 1)
            if end == -1:
                if index < forward - 1:
                    return None
                end = len(text)
        if newline and end < len(text):
            end += 1
        return Span(start, end)

    def block(self, first: int, last: int, *, newline: bool) -> Span:
        """The span of lines [first, last), with the newline after them when `newline`."""
        end = self.starts[last - 1] + len(self.lines[last - 1])
        if newline and last < len(self.lines):
            end += 1
        return Span(self.starts[first], end, (first, last))


@dataclass(frozen=True, slots=True)
class Needle:
    """old_string split for line strategies: a trailing newline is noted, not a line."""

    text: str
    lines: tuple[str, ...]
    newline: bool

    @classmethod
    def of(cls, text: str) -> Needle:
        body = text[:-1] if text.endswith("\n") else text
        return cls(text, tuple(body.split("\n")), text.endswith("\n"))


def fold(text: str) -> str:
    """Typographic characters replaced by their ASCII look-alikes."""
    return (
        _UNICODE_CHARS.sub(lambda m: UNICODE_TO_ASCII[m.group()], text)
        if _UNICODE_CHARS.search(text)
        else text
    )


def find_all(text: str, needle: str) -> list[Span]:
    """Non-overlapping occurrences, left to right (as str.replace counts them)."""
    out, start = [], 0
    while (at := text.find(needle, start)) != -1:
        out.append(Span(at, at + len(needle)))
        start = at + max(len(needle), 1)
    return out


def line_trimmed(hay: Text, needle: Needle) -> list[Span]:
    want = [line.strip() for line in needle.lines]
    anchor = next((i for i, line in enumerate(want) if line), None)
    if anchor is None:
        return []
    out: list[Span] = []
    for at, begin in hay.lines_trimmed_to(want[anchor]):
        first = at - anchor
        span = hay.window(begin, anchor, len(want) - anchor, newline=needle.newline)
        if span is None or first < 0:
            continue
        body = hay.text[span.start : span.end]
        got = (body[:-1] if needle.newline and body.endswith("\n") else body).split("\n")
        if [line.strip() for line in got] == want:
            out.append(Span(span.start, span.end, (first, first + len(want))))
    return out


def pattern(old: str, *, spaces: bool, typographic: bool) -> re.Pattern[str] | None:
    """A regex for `old` with flexible whitespace runs and/or typographic look-alikes."""
    if typographic:
        old = fold(old)
    tokens = re.findall(r"\.\.\.|--|[ \t]+|.", old, flags=re.DOTALL)
    run = (_SPACES if typographic else "[ \t]") + "+"
    parts: list[str] = []
    for token in tokens:
        if token[0] in " \t" and spaces:
            parts.append(run)
        elif typographic and token in _ALTERNATIVES:
            parts.append(_ALTERNATIVES[token])
        elif typographic and token[0] == " ":
            parts.append(_ALTERNATIVES[" "] * len(token))
        elif typographic and token == "\t":
            parts.append("\t")
        else:
            parts.append(re.escape(token))
    try:
        return re.compile("".join(parts))
    except (re.error, RecursionError, OverflowError):
        return None


def regex_spans(hay: Text, regex: re.Pattern[str] | None) -> list[Span]:
    if regex is None:
        return []
    return [Span(m.start(), m.end()) for m in regex.finditer(hay.text) if m.end() > m.start()]


def similarity(a: str, b: str) -> float:
    if a == b:
        return 1.0
    from difflib import SequenceMatcher  # imported on the slow path only

    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
        return 0.0
    return matcher.ratio()


def _windows(hay: Text, want: list[str]) -> list[int]:
    """Window starts where at least one line of `want` (folded, non-blank) equals its file line."""
    starts: set[int] = set()
    for offset, line in enumerate(want):
        for at in hay.folded_index.get(line, ()) if line else ():
            first = at - offset
            if first >= 0 and first + len(want) <= len(hay.lines):
                starts.add(first)
        if len(starts) > MAX_CANDIDATES:
            break
    return sorted(starts)[:MAX_CANDIDATES]


def _similar_blocks(
    hay: Text, needle: Needle, accept: Callable[[list[str], list[str]], float | None]
) -> list[Span]:
    want = [fold(line.strip()) for line in needle.lines]
    out: list[Span] = []
    for first in _windows(hay, want):
        got = hay.folded[first : first + len(want)]
        score = accept(want, got)
        if score is not None:
            span = hay.block(first, first + len(want), newline=needle.newline)
            out.append(Span(span.start, span.end, span.lines, score))
    return out


def block_anchor(hay: Text, needle: Needle) -> list[Span]:
    if len(needle.lines) < 3:
        return []

    def accept(want: list[str], got: list[str]) -> float | None:
        if want[0] != got[0] or want[-1] != got[-1] or not want[0] or not want[-1]:
            return None
        scores = [similarity(w, g) for w, g in zip(want[1:-1], got[1:-1], strict=True) if w or g]
        if any(s < BLOCK_LINE_RATIO for s in scores):
            return None
        return sum(scores) / len(scores) if scores else 1.0

    return _similar_blocks(hay, needle, accept)


def context_aware(hay: Text, needle: Needle) -> list[Span]:
    if len(needle.lines) < 2:
        return []

    def accept(want: list[str], got: list[str]) -> float | None:
        scores = [similarity(w, g) for w, g in zip(want, got, strict=True)]
        if any(s < CONTEXT_LINE_RATIO for s in scores) or not any(
            s == 1.0 and w for s, w in zip(scores, want, strict=True)
        ):
            return None
        return sum(scores) / len(scores)

    return _similar_blocks(hay, needle, accept)
