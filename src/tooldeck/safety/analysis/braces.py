"""Brace expansion: `/{etc,usr}` is two words and `/dev/sd{a..c}` three, as bash expands them
before any other expansion.

Only braces written literally and unquoted expand (`'{a,b}'` and `$x` holding braces do not);
a list (`{a,b}`, `{,.bak}`) or a range of numbers or letters (`{1..3}`, `{a..c}`, `{1..9..2}`).
Nested braces expand from the inside out. A word expands to at most `MAX_WORDS` words; the rest
are dropped, which only shortens a list that rules already judge word by word.
"""

from __future__ import annotations

import re

MAX_WORDS = 16
_LIST = re.compile(r"(?<!\$)\{([^{}]*,[^{}]*)\}")
_RANGE = re.compile(r"(?<!\$)\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\}")


def expand_braces(text: str) -> list[str]:
    """The words one literal word becomes; `[text]` when it holds no brace expression."""
    words = [text]
    for _ in range(MAX_WORDS):
        out: list[str] = []
        changed = False
        for word in words:
            variants = _expand_one(word)
            changed = changed or variants != [word]
            out += variants
        words = out[:MAX_WORDS]
        if not changed:
            break
    return words


def brace_variants(texts: list[str], literal: list[bool]) -> list[list[str]]:
    """Every way the pieces of one word read after brace expansion; only `literal` pieces expand.

    A brace expression inside one literal piece expands; one spanning a quoted or expanded piece
    (`{a,"b c"}`) is left as written.
    """
    variants = [list(texts)]
    for i, text in enumerate(texts):
        if not literal[i]:
            continue
        words = expand_braces(text)
        if words == [text]:
            continue
        variants = [[*v[:i], w, *v[i + 1 :]] for v in variants for w in words][:MAX_WORDS]
    return variants


def _expand_one(word: str) -> list[str]:
    """Expand the innermost brace expression of `word` (one level)."""
    found = [m for m in (_LIST.search(word), _RANGE.search(word)) if m is not None]
    if not found:
        return [word]
    match = min(found, key=lambda m: m.start())
    head, tail = word[: match.start()], word[match.end() :]
    items: list[str] | None
    if match.re is _LIST:
        items = _split_items(match.group(1))
    else:
        items = _range(match.group(1), match.group(2), match.group(3))
    if items is None:
        return [word]
    return [head + item + tail for item in items][:MAX_WORDS]


def _split_items(body: str) -> list[str]:
    out, current, escaped = [], "", False
    for ch in body:
        if escaped:
            current += ch
            escaped = False
        elif ch == "\\":
            current += ch
            escaped = True
        elif ch == ",":
            out.append(current)
            current = ""
        else:
            current += ch
    return [*out, current]


def _range(start: str, end: str, step_text: str | None) -> list[str] | None:
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if start.lstrip("-").isdigit() and end.lstrip("-").isdigit():
        first, last = int(start), int(end)
        width = max(len(start), len(end)) if start.lstrip("-").startswith("0") else 0
        numbers = range(first, last + 1, step) if first <= last else range(first, last - 1, -step)
        return [str(n).zfill(width) for n in list(numbers)[:MAX_WORDS]]
    if len(start) == 1 and len(end) == 1 and start.isalpha() and end.isalpha():
        a, b = ord(start), ord(end)
        codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(c) for c in list(codes)[:MAX_WORDS]]
    return None
