"""The `/regex/` query form, with a hard bound on what a pattern may cost.

Python's own `re` cannot be interrupted, so a pattern like `(a|aa)+$` could hold a thread for
minutes. Patterns run on the `regex` engine instead, whose matcher checks a deadline as it
goes: the whole scan of the catalog gets a time budget, and a pattern that uses it up stops
with the matches found so far and a note saying so. Patterns are also capped in length, and
each tool's searchable text ("name description") in size.

A pattern that does not compile is searched as literal text, as DeerFlow's `tool_search` does,
again with a note.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tooldeck.search.catalog import Catalog

MAX_PATTERN_CHARS = 512
MAX_TEXT_CHARS = 4_000
BUDGET_S = 0.25


@dataclass(frozen=True, slots=True)
class PatternMatches:
    """Names whose name matched (first) and whose description only matched, catalog order."""

    in_name: tuple[str, ...]
    in_description: tuple[str, ...]
    note: str | None = None


def match_pattern(catalog: Catalog, pattern: str, *, budget_s: float = BUDGET_S) -> PatternMatches:
    """Tools whose name or description matches `pattern` (case-insensitive), within the budget."""
    import regex  # loaded only when a pattern is searched

    note = None
    if len(pattern) > MAX_PATTERN_CHARS:
        return PatternMatches((), (), f"pattern longer than {MAX_PATTERN_CHARS} characters; shorten it")
    try:
        compiled = regex.compile(pattern, regex.IGNORECASE | regex.VERSION0)
    except (regex.error, ValueError, OverflowError, RecursionError):
        compiled = regex.compile(regex.escape(pattern), regex.IGNORECASE)
        note = "not a valid regular expression; searched as literal text"
    deadline = time.monotonic() + budget_s
    in_name: list[str] = []
    in_desc: list[str] = []
    for checked, entry in enumerate(catalog):
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            text = f"{entry.name} {entry.description}"[:MAX_TEXT_CHARS]
            if compiled.search(text, timeout=left) is None:
                continue
            if compiled.search(entry.name[:MAX_TEXT_CHARS], timeout=max(deadline - time.monotonic(), 1e-6)):
                in_name.append(entry.name)
            else:
                in_desc.append(entry.name)
        except TimeoutError:
            note = (
                f"the pattern was stopped after {int(budget_s * 1000)} ms ({checked} of {len(catalog)} "
                "tools checked); use a simpler pattern"
            )
            break
    return PatternMatches(tuple(in_name), tuple(in_desc), note)
