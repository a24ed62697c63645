"""The message when `old_string` is not in the file: what was tried, and the closest sections.

A section is a window of as many file lines as old_string has, found from the lines the two
share (equal lines, or a distinctive word), scored by line similarity. Each differing line is
named with what the file has; "only whitespace differs" is said of a line only when it is true
of that line, never guessed from a first line alone. Blank lines old_string has and the file
has not (or the other way round) are said as such.
"""

from __future__ import annotations

import re

from tooldeck.tools import matching as m

MAX_SHOWN_LINES = 12
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}|\d{3,}")
TRIED = "exact, line endings, trimmed lines, whitespace, escapes, typographic characters, similar blocks"


def no_match(hay: m.Text, old: str, new: str) -> str:
    """The whole no-match message."""
    head = f"Could not find a match for old_string (0 matches; tried: {TRIED})"
    drift = _drift(hay.text, old, new)
    if drift:
        head = f"{head}. Escape-drift detected: {drift}"
    hint = closest_sections(hay, old)
    if hint:
        return f"{head}.\n\nDid you mean one of these sections?\n{hint}"
    return f"{head}; nothing in the file resembles it: check the path, or read the file with read_file first"


def _drift(text: str, old: str, new: str) -> str | None:
    for suspect in ("\\'", '\\"'):
        if suspect in old and suspect in new and suspect not in text:
            return (
                f"old_string and new_string contain {suspect!r} (a backslash before the quote) that the "
                "file never has; that is tool-call escaping. Send the quotes without the backslash"
            )
    return None


def closest_sections(hay: m.Text, old: str, *, limit: int = 2) -> str:
    want = list(m.Needle.of(old).lines)
    wanted = [line.strip() for line in want]
    if not any(wanted):
        return ""
    scored = sorted(((_score(hay, wanted, first), first) for first in _candidates(hay, wanted)), reverse=True)
    sections: list[str] = []
    taken: list[int] = []
    for (mean, best), first in scored:
        if len(sections) >= limit:
            break
        if mean < 0.5 and best < 0.75:
            continue
        if any(abs(first - other) < len(want) for other in taken):
            continue
        taken.append(first)
        sections.append(_render(hay, want, first))
    blank = _blank_line_note(hay, wanted)
    return "\n---\n".join(sections) + (f"\n{blank}" if blank and sections else blank or "")


def _candidates(hay: m.Text, wanted: list[str]) -> set[int]:
    """Window starts suggested by equal lines or by each line's most distinctive word."""
    starts: set[int] = set()
    stripped = hay.stripped
    for offset, line in enumerate(wanted[:40]):
        if not line:
            continue
        words = sorted(_WORD.findall(line), key=len, reverse=True)
        probe = words[0] if words else line
        hits = [i for i, text in enumerate(stripped) if probe in text]
        for at in hits[:200]:
            first = max(0, min(at - offset, len(hay.lines) - len(wanted)))
            starts.add(first)
        if len(starts) > 400:
            break
    return starts


def _score(hay: m.Text, wanted: list[str], first: int) -> tuple[float, float]:
    """Mean line similarity of the window, and its best line's."""
    got = hay.stripped[first : first + len(wanted)]
    scores = [m.similarity(w, g) if w and g else 0.0 for w, g in zip(wanted, got, strict=False) if w or g]
    return (sum(scores) / len(scores), max(scores)) if scores else (0.0, 0.0)


def _render(hay: m.Text, want: list[str], first: int) -> str:
    last = min(first + len(want), len(hay.lines))
    got = hay.lines[first:last]
    same = sum(1 for w, g in zip(want, got, strict=False) if w.strip() == g.strip())
    out = [f"lines {first + 1}-{last} ({same} of {len(want)} lines equal when trimmed):"]
    out += [f"{first + i + 1:>5}|{line}" for i, line in enumerate(got[:MAX_SHOWN_LINES])]
    if len(got) > MAX_SHOWN_LINES:
        out.append(f"      ... ({len(got) - MAX_SHOWN_LINES} more lines)")
    diffs = [
        _difference(first + i + 1, w, g) for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g
    ]
    out += [d for d in diffs if d][:4]
    return "\n".join(out)


def _difference(number: int, ours: str, theirs: str) -> str | None:
    if ours.strip() == theirs.strip():
        if ours.strip():
            return f"  line {number}: only the indentation or trailing spaces differ"
        return None
    if not ours.strip():
        return f"  line {number}: old_string has a blank line where the file has {theirs.strip()!r}"
    if not theirs.strip():
        return f"  line {number}: the file has a blank line where old_string has {ours.strip()!r}"
    if " ".join(ours.split()) == " ".join(theirs.split()):
        return f"  line {number}: only whitespace inside the line differs"
    if m.fold(ours.strip()) == m.fold(theirs.strip()):
        return f"  line {number}: only typographic characters differ (quotes, dashes, spaces)"
    return f"  line {number}: the file has {theirs.strip()!r}, old_string has {ours.strip()!r}"


def _blank_line_note(hay: m.Text, wanted: list[str]) -> str:
    """Said when old_string equals a block of the file once blank lines are ignored."""
    ours = [w for w in wanted if w]
    if len(ours) == len(wanted) and len(ours) < 2:
        return ""
    stripped = hay.stripped
    for at in (i for i, line in enumerate(stripped) if line == ours[0]):
        got: list[str] = []
        j = at
        while j < len(stripped) and len(got) < len(ours):
            if stripped[j]:
                got.append(stripped[j])
            j += 1
        if got == ours:
            return (
                f"Note: apart from blank lines, old_string equals lines {at + 1}-{j}; "
                "old_string and the file differ in their blank lines there"
            )
    return ""
