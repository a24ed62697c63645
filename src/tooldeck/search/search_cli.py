"""What `tooldeck search` prints, as one function the command line calls.

    tooldeck search QUERY [--limit K] [--ranker bm25|semantic|hybrid] [--json]
    tooldeck search --catalog tools.json QUERY          any JSON list of {name, description, parameters}
    tooldeck search --catalog tools.json --queries q.jsonl   one {"id", "results": [names]} line per query

`search_cli` returns the text to print, or raises `SearchUsageError` (exit status 2) when the
command itself is misused: neither or both of QUERY and `--queries`, an unreadable or invalid
file, a bad limit or ranker. The ranked names are exactly as the catalog spells them. A command
line wires it in a few lines:

    try:
        print(search_cli(args.query, catalog=deferred_catalog, catalog_file=args.catalog,
                         queries_file=args.queries, limit=args.limit, ranker=args.ranker,
                         as_json=args.json, cache_dir=home / "search"))
    except (SearchUsageError, SemanticUnavailable) as exc:
        print(f"tooldeck search: {exc}", file=sys.stderr)
        return 2
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import RANKERS, RankerName, SearchResult, ToolSearch, search_index
from tooldeck.search.errors import CatalogError, SearchUsageError
from tooldeck.text import for_terminal


def _printable(text: str) -> str:
    # Names may hold anything a JSON file can spell: terminal escape sequences and other control
    # characters are shown escaped, lone surrogates replaced (`--json` keeps the exact names).
    return for_terminal(text)


def read_queries(path: str | Path) -> Iterator[tuple[Any, str]]:
    """(id, query) pairs of a JSONL file of `{"id", "query"}` objects; blank lines skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SearchUsageError(f"cannot read queries file {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SearchUsageError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise SearchUsageError(f'{path}:{number}: expected an object with a string "query"')
        yield item.get("id"), item["query"]


def _text_report(query: str, result: SearchResult) -> str:
    lines = [f"{hit.score:8.3f}  {_printable(hit.name)}" for hit in result.hits]
    if not result.hits:
        lines.append(f"no tools found for {_printable(repr(query))}")
    if result.unknown:
        lines.append("not in the catalog: " + ", ".join(_printable(n) for n in result.unknown))
    if result.note:
        lines.append(f"note: {_printable(result.note)}")
    return "\n".join(lines)


def _check_options(limit: int, ranker: str) -> RankerName:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise SearchUsageError(f"--limit must be a positive whole number, got {limit!r}")
    for known in RANKERS:
        if ranker == known:
            return known
    raise SearchUsageError(f"--ranker must be one of {', '.join(RANKERS)}, got {ranker!r}")


def _open_catalog(
    catalog: Catalog | None, catalog_file: str | Path | None, cache_dir: str | Path | None
) -> ToolSearch:
    if catalog_file is not None:
        try:
            catalog = Catalog.load(catalog_file)
        except CatalogError as exc:
            raise SearchUsageError(str(exc)) from None
    if catalog is None:
        raise SearchUsageError("no catalog to search: pass --catalog FILE or configure deferred tools")
    return search_index(catalog, cache_dir=cache_dir)


def search_cli(
    query: str | None,
    *,
    catalog: Catalog | None = None,
    catalog_file: str | Path | None = None,
    queries_file: str | Path | None = None,
    limit: int = 5,
    ranker: str = "bm25",
    as_json: bool = False,
    cache_dir: str | Path | None = None,
) -> str:
    """The output of `tooldeck search` (no trailing newline); see the module docstring.

    `catalog` is the configured deferred catalog; `catalog_file` (`--catalog`) replaces it.
    `cache_dir` keeps embeddings between runs (e.g. under the tooldeck home), so the semantic
    and hybrid rankers embed a catalog once.
    """
    chosen = _check_options(limit, ranker)
    if (query is None) == (queries_file is None):
        raise SearchUsageError("give either a QUERY or --queries FILE (one of them, not both)")
    index = _open_catalog(catalog, catalog_file, cache_dir)
    if queries_file is not None:
        out = []
        for qid, text in read_queries(queries_file):
            result = index.search(text, limit=limit, ranker=chosen)
            out.append(json.dumps({"id": qid, "results": result.names}))
        return "\n".join(out)
    assert query is not None
    result = index.search(query, limit=limit, ranker=chosen)
    if as_json:
        return json.dumps([{"name": h.name, "score": round(h.score, 6)} for h in result.hits])
    return _text_report(query, result)
