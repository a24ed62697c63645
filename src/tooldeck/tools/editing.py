"""`replace(content, old, new)`: the edit `patch` makes, with the strategy chain and its guards.

The rules, in order:

1. `old_string` is looked up by the strategies of `matching.py`, strictest first; the first
   strategy that finds anything decides, and it must find exactly one place (or replace_all).
2. Similarity matches (block_anchor, context_aware) are never used with replace_all.
3. The replacement is fitted to the place found: re-indented to the file's indentation (line
   by line from how old_string's indentation maps onto the file's, so a first line copied
   without its indent does not shift the rest); lines the edit leaves unchanged keep the
   file's own text; typographic characters the edit does not touch stay as they were.
4. Refused, with the reason: a non-exact match whose replacement jumps to a suspicious
   indentation (deeper than one level past the line before, which opens no block), and
   replacement text carrying `\\'`/`\\"` escapes the file does not have (tool-call escaping).
5. Line endings: matching ignores `\\r\\n` vs `\\n`; the replacement takes the line ending of
   the lines it replaces, and every byte outside the replaced places is kept.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from tooldeck.tools import matching as m

SIMILAR = frozenset({"block_anchor", "context_aware"})
_LINE_MERGED = frozenset({"line_trimmed", "block_anchor", "context_aware"})
_OPENERS = (":", "{", "(", "[", ",", "\\", "=", "+", "-", "*", "/", "|", "&", "<", ">", "?", "=>", "->")
_TAB_ESCAPE = re.compile(r"(?:(?<=^)|(?<=\n)|(?<=\\n)|(?<=\t))\\t", re.MULTILINE)


class EditError(Exception):
    """The edit was not made; the message tells the model why and what to do instead."""


class Ambiguous(EditError):
    """old_string matches more than one place; `where` says where, in words ("at lines 1, 3")."""

    def __init__(self, count: int, where: str, how: str) -> None:
        self.count, self.where, self.how = count, where, how
        super().__init__(
            f"found {count} matches for old_string{how}, {where}; include more surrounding lines so it "
            "matches once, or set replace_all=true to change every one"
        )


@dataclass(frozen=True, slots=True)
class Edited:
    text: str  # the whole new content, with the file's own line endings
    count: int
    strategy: str
    lines: tuple[int, ...]  # 1-based first line of each place replaced
    notes: tuple[str, ...] = ()


def replace(content: str, old: str, new: str, *, replace_all: bool = False) -> Edited:
    """`content` with `old` replaced by `new`; raises EditError (nothing changed) otherwise."""
    if not old:
        raise EditError("old_string is empty; to create or overwrite a whole file use write_file")
    if old == new:
        raise EditError("old_string and new_string are identical; nothing to change")
    if not old.strip():
        raise EditError("old_string is only whitespace; include some visible text of the lines to change")
    if "\r" in old and (spans := m.find_all(content, old)):
        # old_string carries the file's own carriage returns: replace byte for byte.
        return _finish(_Unified(content, content, []), m.Text(content), old, new, "exact", spans, replace_all)
    unified = _Unified.of(content)
    hay = m.Text(unified.text)
    old_lf, new_lf = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    for strategy, spans in _chain(hay, old_lf):
        if spans:
            if strategy == "exact" and unified.crosses_crlf(spans):
                strategy = "line_endings"
            return _finish(unified, hay, old_lf, new_lf, strategy, spans, replace_all)
    from tooldeck.tools.hints import no_match

    raise EditError(no_match(hay, old_lf, new_lf))


def _chain(hay: m.Text, old: str) -> Iterator[tuple[str, list[m.Span]]]:
    """Each strategy with what it finds, computed only when the stricter ones found nothing."""
    needle = m.Needle.of(old)
    yield "exact", m.find_all(hay.text, old)
    yield "line_trimmed", m.line_trimmed(hay, needle)
    yield "whitespace_normalized", _whitespace(hay, old)
    yield "escape_normalized", _escaped(hay, old)
    yield "unicode_normalized", _typographic(hay, old)
    yield "block_anchor", m.block_anchor(hay, needle)
    yield "context_aware", m.context_aware(hay, needle)


def _whitespace(hay: m.Text, old: str) -> list[m.Span]:
    if not re.search(r"[ \t]", old):
        return []
    return m.regex_spans(hay, m.pattern(old, spaces=True, typographic=False))


def _unescape(text: str, kinds: str) -> str:
    if "r" in kinds:
        text = text.replace("\\r\\n", "\n").replace("\\r", "\r")
    if "n" in kinds:
        text = text.replace("\\n", "\n")
    if "t" in kinds:
        text = text.replace("\\t", "\t")
    return text


def _escape_kinds(old: str) -> str:
    return "".join(k for k in "ntr" if f"\\{k}" in old)


def _escaped(hay: m.Text, old: str) -> list[m.Span]:
    kinds = _escape_kinds(old)
    return m.find_all(hay.text, _unescape(old, kinds)) if kinds else []


def _typographic(hay: m.Text, old: str) -> list[m.Span]:
    if old.isascii() and hay.text.isascii():  # O(1): no typographic character on either side
        return []
    return m.regex_spans(hay, m.pattern(old, spaces=False, typographic=True)) or m.regex_spans(
        hay, m.pattern(old, spaces=True, typographic=True)
    )


def _finish(
    unified: _Unified, hay: m.Text, old: str, new: str, strategy: str, spans: list[m.Span], replace_all: bool
) -> Edited:
    lines = tuple(line + 1 for line in hay.lines_of([s.start for s in spans]))
    if len(spans) > 1 and not replace_all:
        unique = sorted(set(lines))
        where = ", ".join(map(str, unique[:10])) + (" ..." if len(unique) > 10 else "")
        how = "" if strategy == "exact" else f" (matched by {strategy})"
        raise Ambiguous(len(spans), f"at line{'s' if len(unique) > 1 else ''} {where}", how)
    if strategy in SIMILAR and replace_all:
        raise EditError(
            f"old_string was only found by similarity ({strategy}), not as written; replace_all is refused "
            "for similar blocks (it could rewrite blocks that merely look alike). Copy the exact text "
            "from read_file, or patch each place on its own"
        )
    # Overlapping places (old_string's lines found at line 1 and at line 2) made the request
    # ambiguous above; replace_all takes them left to right without overlap.
    kept: list[m.Span] = []
    for span in spans:
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
    spans = kept
    lines = tuple(line + 1 for line in hay.lines_of([s.start for s in spans]))
    notes: list[str] = []
    edits = [(s.start, s.end, _fit(hay, old, new, strategy, s, notes)) for s in spans]
    return Edited(unified.apply(edits), len(spans), strategy, lines, tuple(dict.fromkeys(notes)))


def _fit(hay: m.Text, old: str, new: str, strategy: str, span: m.Span, notes: list[str]) -> str:
    """The replacement text for one place, fitted to it (and checked)."""
    region = hay.text[span.start : span.end]
    if strategy == "escape_normalized":
        new = _unescape(new, _escape_kinds(old))
    new = _tabs(new, region)
    if strategy != "exact":
        _check_escape_drift(old, new, region)
    if strategy in ("exact", "line_endings", "escape_normalized"):
        fitted = new
    elif strategy == "unicode_normalized":
        fitted = transplant(old, region, new)
    elif strategy in _LINE_MERGED and span.lines is not None:
        fitted = _merge_lines(hay, old, new, span, strategy, notes)
    else:
        fitted = _reindent_block(hay, old, new, span)
    if strategy != "exact":
        _check_indentation(old, fitted, region)
    return fitted


def _tabs(new: str, region: str) -> str:
    """`\\t` typed for indentation where the file indents with real tabs becomes a tab."""
    if "\\t" in new and "\t" in region and "\\t" not in region:
        return _TAB_ESCAPE.sub("\t", new)
    return new


def _check_escape_drift(old: str, new: str, region: str) -> None:
    for suspect in ("\\'", '\\"'):
        if suspect in new and suspect in old and suspect not in region:
            raise EditError(
                f"Escape-drift detected: old_string and new_string contain {suspect!r} (a backslash before "
                f"the quote) but the file does not have it there; this is tool-call escaping, not file "
                f"content. Send the quotes without the backslash"
            )


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_map(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """How old_string's indentation strings map onto the file's, by majority over aligned lines
    (the first line counts half: models often copy it without its indentation)."""
    votes: dict[str, dict[str, float]] = {}
    for index, (ours, theirs) in enumerate(pairs):
        if ours.strip() and theirs.strip():
            tally = votes.setdefault(_indent(ours), {})
            tally[_indent(theirs)] = tally.get(_indent(theirs), 0.0) + (1.0 if index else 0.5)
    return {key: max(tally, key=lambda k: tally[k]) for key, tally in votes.items()}


def reindent(line: str, mapping: dict[str, str]) -> str:
    if not line.strip() or not mapping:
        return line
    ind, rest = _indent(line), line.lstrip(" \t")
    if ind in mapping:
        return mapping[ind] + rest
    base = max((k for k in mapping if ind.startswith(k)), key=len, default=None)
    if base is not None:
        return mapping[base] + ind[len(base) :] + rest
    shallowest = min(mapping, key=len)
    target = mapping[shallowest]
    return target[: max(0, len(target) - (len(shallowest) - len(ind)))] + rest


def _merge_lines(hay: m.Text, old: str, new: str, span: m.Span, strategy: str, notes: list[str]) -> str:
    """Lines new_string keeps from old_string are the file's lines; the others are re-indented."""
    from difflib import SequenceMatcher

    assert span.lines is not None  # the caller merges only whole-line matches
    first = span.lines[0]
    needle, wanted = m.Needle.of(old), m.Needle.of(new)
    body = hay.text[span.start : span.end]
    theirs = (body[:-1] if needle.newline and body.endswith("\n") else body).split("\n")
    ours = list(needle.lines)
    mapping = indent_map(list(zip(ours, theirs, strict=True)))
    if any(k != v for k, v in mapping.items()):
        notes.append("the replacement was re-indented to the file's indentation")
    if strategy in SIMILAR:
        differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a.strip() != b.strip()]
        shown = "; ".join(f"line {first + i + 1} is {theirs[i].strip()!r}" for i in differ[:3])
        notes.append(f"old_string differed from the file ({shown}); check the result")
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ours, list(wanted.lines), autojunk=False).get_opcodes():
        if tag == "equal":
            out += theirs[i1:i2]
        else:
            out += [reindent(line, mapping) for line in wanted.lines[j1:j2]]
    text = "\n".join(out)
    # The span holds the newline after the block exactly when old_string ended with one.
    return text + "\n" if wanted.newline else text


def _reindent_block(hay: m.Text, old: str, new: str, span: m.Span) -> str:
    """For a match inside lines: lines 2.. of old_string align with the file's next lines."""
    first = hay.line_of(span.start)
    ours = old.split("\n")
    theirs = hay.lines[first : first + len(ours)]
    pairs = list(zip(ours, theirs, strict=False))
    if span.start != hay.text.rfind("\n", 0, span.start) + 1:
        pairs = pairs[1:]  # the first line is matched from its middle: its indent is not in view
    mapping = indent_map(pairs)
    lines = new.split("\n")
    return "\n".join([lines[0], *[reindent(line, mapping) for line in lines[1:]]])


def transplant(old: str, region: str, new: str) -> str:
    """Apply the edit old -> new to `region` (a near copy of old): what new keeps of old is
    taken from region, so the file's own characters survive where the edit did not reach."""
    from difflib import SequenceMatcher

    align = SequenceMatcher(None, old, region, autojunk=False).get_opcodes()

    def where(i: int, *, end: bool) -> int:
        for tag, a1, a2, b1, b2 in align:
            inside = a1 < i <= a2 if end else a1 <= i < a2 or (a1 == a2 == i)
            if inside:
                if tag == "equal":
                    return b1 + (i - a1)
                return b2 if (end and i == a2) or (not end and i > a1) else b1
        return len(region)

    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(region[where(i1, end=False) : where(i2, end=True)])
        elif tag != "delete":
            out.append(new[j1:j2])
    return "".join(out)


def _check_indentation(old: str, new: str, region: str) -> None:
    """Refuse a replacement line that jumps more than one indent level past the line before it
    when that line opens no block (a typo the fuzzy match would otherwise write in)."""
    indents = sorted(
        {len(_indent(x).expandtabs(4)) for x in (*old.split("\n"), *region.split("\n")) if x.strip()}
    )
    steps = [b - a for a, b in itertools.pairwise(indents) if b > a]
    unit = min(steps) if steps else 4
    previous: str | None = None
    for number, line in enumerate(new.split("\n"), start=1):
        if not line.strip():
            continue
        if previous is not None:
            jump = len(_indent(line).expandtabs(4)) - len(_indent(previous).expandtabs(4))
            if jump > max(unit, 4) and not previous.rstrip().endswith(_OPENERS):
                raise EditError(
                    f"Suspicious indentation: new_string line {number} is indented {jump} columns deeper "
                    f"than the line before it, which does not open a block (the file indents by {unit}). "
                    "Fix the indentation, or include the line that opens the block"
                )
        previous = line


class _Unified:
    """A text with `\\r\\n` unified to `\\n`, and the way back to the original's offsets."""

    def __init__(self, raw: str, text: str, crs: list[int]) -> None:
        self.raw, self.text, self.crs = raw, text, crs  # crs: unified offsets of former "\r\n"

    @classmethod
    def of(cls, raw: str) -> _Unified:
        if "\r" not in raw or "\r\n" not in raw:  # a one-character search is far faster
            return cls(raw, raw, [])
        crs, at, removed = [], raw.find("\r\n"), 0
        while at != -1:
            crs.append(at - removed)
            removed += 1
            at = raw.find("\r\n", at + 2)
        return cls(raw, raw.replace("\r\n", "\n"), crs)

    def raw_offset(self, offset: int) -> int:
        return offset + bisect_left(self.crs, offset)

    def apply(self, edits: list[tuple[int, int, str]]) -> str:
        out, previous = [], 0
        for start, end, text in sorted(edits):
            raw_start, raw_end = self.raw_offset(start), self.raw_offset(end)
            out += [self.raw[previous:raw_start], self._endings(raw_start, raw_end, text)]
            previous = raw_end
        out.append(self.raw[previous:])
        return "".join(out)

    def _endings(self, start: int, end: int, text: str) -> str:
        """`text` with the line ending of the lines it replaces (CRLF where they had it)."""
        if "\n" not in text or not self.crs:
            return text
        region = self.raw[start:end]
        if "\n" in region:
            crlf = "\r\n" in region
        else:  # inside one line: that line's ending, or the file's usual one for the last line
            line_end = self.raw.find("\n", end)
            if line_end != -1:
                crlf = line_end > 0 and self.raw[line_end - 1] == "\r"
            else:
                crlf = len(self.crs) * 2 > self.raw.count("\n")
        return text.replace("\n", "\r\n") if crlf else text

    def crosses_crlf(self, spans: list[m.Span]) -> bool:
        """Whether any span (unified offsets) covers a former `\r\n`."""
        return any(bisect_left(self.crs, s.start) != bisect_left(self.crs, s.end) for s in spans)
