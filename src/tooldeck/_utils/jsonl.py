"""JSON Lines input (`tooldeck batch` items, `tooldeck search --queries`): each line is parsed
on its own; a bad line or a repeated id is a `LineProblem` with its line number, and the other
lines go on. Blank lines are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LineProblem:
    """A line that was skipped, and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def id_key(value: Any) -> str:
    """What makes two ids the same: their JSON text (so 5 and "5" differ)."""
    return json.dumps(value)


def read_unique(
    lines: Iterable[tuple[int, str]],
    parse: Callable[[str, int], T],
    id_of: Callable[[T], Any],
    *,
    refused: type[Exception] | tuple[type[Exception], ...] = ValueError,
) -> tuple[list[T], list[LineProblem]]:
    """The parsed lines in order (the first of each id), and every line skipped.

    `parse(text, number)` raises one of `refused` naming what is wrong with a line.
    """
    found: list[T] = []
    problems: list[LineProblem] = []
    first_seen: dict[str, int] = {}
    for number, text in lines:
        if not text.strip():
            continue
        try:
            item = parse(text, number)
        except refused as exc:
            problems.append(LineProblem(number, str(exc)))
            continue
        key = id_key(id_of(item))
        if key in first_seen:
            problems.append(
                LineProblem(number, f"duplicate id {id_of(item)!r} (first on line {first_seen[key]})")
            )
            continue
        first_seen[key] = number
        found.append(item)
    return found, problems
