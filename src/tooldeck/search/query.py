"""The query forms `tool_search` understands, parsed from one string.

    select:a,b        exact tool names, any number, returned in the order asked
    /pattern/         a case-insensitive regular expression over "name description"
    +term rest        `term` must occur in the tool's name; `rest` ranks the survivors
                      (several `+terms` may be given; all are required)
    anything else     free text, ranked

Parsing never fails: any string, however odd, is one of these forms (an empty one is free text
with no words, which finds nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_QUERY_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class FreeText:
    text: str


@dataclass(frozen=True, slots=True)
class Select:
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pattern:
    pattern: str


@dataclass(frozen=True, slots=True)
class Required:
    terms: tuple[str, ...]  # lowercased, each must be a substring of the name
    rest: str


Query = FreeText | Select | Pattern | Required


def _clean(text: str) -> str:
    # Control characters other than whitespace and lone surrogates cannot mean anything here.
    kept = (ch for ch in text if ch.isprintable() or ch in " \t\n")
    cleaned = "".join(ch for ch in kept if not 0xD800 <= ord(ch) <= 0xDFFF)
    return cleaned.strip()[:MAX_QUERY_CHARS]


def parse_query(text: str) -> Query:
    """The form of `text` (see the module docstring)."""
    raw = _clean(text if isinstance(text, str) else "")
    if raw[:7].lower() == "select:":
        names = [n.strip() for n in raw[7:].split(",")]
        return Select(tuple(dict.fromkeys(n for n in names if n)))
    if len(raw) >= 3 and raw.startswith("/") and raw.endswith("/"):
        return Pattern(raw[1:-1])
    if raw.startswith("+"):
        required: list[str] = []
        rest: list[str] = []
        for word in raw.split():
            if word.startswith("+") and len(word) > 1:
                required.append(word[1:].lower())
            elif word != "+":
                rest.append(word)
        if required:
            return Required(tuple(dict.fromkeys(required)), " ".join(rest))
    return FreeText(raw)
