"""The queries file of `tooldeck search --queries`: one `{"id", "query"}` JSON object per line.

The id is echoed in the result line, so it must keep that line valid JSON and tell the lines
apart: a non-empty string or an integer, unique in the file (NaN, Infinity, other numbers, null
and a missing id are refused). The query is a string. A line that breaks these rules is a
`QueryProblem` with its line number and the others go on; blank lines are ignored. The source
`-` is standard input; a UTF-8 BOM at the start is allowed.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck._utils.jsonl import LineProblem, read_unique
from tooldeck.search.errors import SearchUsageError

STDIN = "-"


@dataclass(frozen=True, slots=True)
class Query:
    """One query to run: its id (echoed in the result line) and text."""

    line: int
    id: str | int
    text: str


# A skipped line of the queries file, and why.
QueryProblem = LineProblem


def source_name(source: str | Path) -> str:
    return "stdin" if str(source) == STDIN else str(source)


def read_queries(source: str | Path) -> tuple[list[Query], list[QueryProblem]]:
    """The valid queries of the file (or stdin for `-`) in order, and every line skipped."""
    lines = enumerate(_read(source).splitlines(), start=1)
    return read_unique(lines, parse_query, lambda query: query.id)


def parse_query(line: str, number: int = 0) -> Query:
    """One line as a query; raises ValueError naming what is wrong with it."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not valid JSON (nested too deeply)") from None
    if not isinstance(item, dict):
        raise ValueError(f'expected an object with a string "query", got {_shown(item)}')
    if not isinstance(item.get("query"), str):
        raise ValueError('expected an object with a string "query"')
    if "id" not in item:
        raise ValueError('the line has no "id" (a non-empty string or an integer, echoed in its result)')
    ident = item["id"]
    if isinstance(ident, bool) or not isinstance(ident, str | int) or ident == "":
        raise ValueError(f'"id" must be a non-empty string or an integer, got {_shown(ident)}')
    return Query(number, ident, item["query"])


def _shown(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value).replace("inf", "Infinity").replace("nan", "NaN")  # as the line spelled it
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "a list"
    return json.dumps(value)


def _read(source: str | Path) -> str:
    name = source_name(source)
    try:
        data = sys.stdin.buffer.read() if str(source) == STDIN else Path(source).read_bytes()
        return data.decode("utf-8-sig")
    except OSError as exc:
        raise SearchUsageError(f"cannot read queries file {name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SearchUsageError(
            f"cannot read queries file {name}: not UTF-8 text (byte {exc.start})"
        ) from None


__all__ = ["STDIN", "Query", "QueryProblem", "parse_query", "read_queries", "source_name"]
