"""What `tooldeck search` prints, as one function the command line calls.

    tooldeck search QUERY [--limit K] [--ranker auto|bm25|semantic|hybrid] [--json]
    tooldeck search --catalog tools.json QUERY          any JSON list of {name, description, parameters}
    tooldeck search --catalog tools.json --queries q.jsonl   one {"id", "results": [names]} line per query
    tooldeck search --prepare [--ranker R]             build the index now (embeddings kept on disk)

`search_cli` returns the text to print, or raises `SearchUsageError` (exit status 2) when the
command itself is misused: neither or both of QUERY and `--queries`, an unreadable or invalid
file, a bad limit or ranker. A bad line of a queries file is skipped and reported (`on_skipped`). The ranked names are exactly as the catalog spells them. A command
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
from collections.abc import Callable
from pathlib import Path

from tooldeck._utils.text import for_terminal
from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import MAX_LIMIT, RANKERS, RankerName, SearchResult, ToolSearch, search_index
from tooldeck.search.errors import CatalogError, SearchUsageError
from tooldeck.search.queries import read_queries, source_name


def _printable(text: str) -> str:
    # Names may hold anything a JSON file can spell: terminal escape sequences and other control
    # characters are shown escaped, lone surrogates replaced (`--json` keeps the exact names).
    return for_terminal(text)


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
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise SearchUsageError(
            f"--limit must be a positive whole number (at most {MAX_LIMIT}), got {limit!r}"
        )
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
    ranker: str = "auto",
    as_json: bool = False,
    cache_dir: str | Path | None = None,
    on_skipped: Callable[[str], None] | None = None,
    prepare: bool = False,
) -> str:
    """The output of `tooldeck search` (no trailing newline); see the module docstring.

    `catalog` is the configured deferred catalog; `catalog_file` (`--catalog`) replaces it.
    `cache_dir` keeps embeddings between runs (e.g. under the tooldeck home), so the semantic
    and hybrid rankers embed a catalog once. `queries_file` may be `-` (standard input); a bad
    line of it (see `tooldeck.search.queries`) is handed to `on_skipped` as `FILE:LINE: why;
    skipped` and the other lines go on, or without `on_skipped` is a `SearchUsageError`.
    `prepare` (`--prepare`, with no query) builds the catalog's index for `ranker` now and
    keeps its embeddings in `cache_dir`, so a later search (`tool_search` in an agent run)
    reads them instead of running the model over every tool.
    """
    chosen = _check_options(limit, ranker)
    if prepare:
        if query is not None or queries_file is not None:
            raise SearchUsageError("--prepare builds the index only: give no QUERY and no --queries")
        # its own index, not the process-wide one: that may have been built with another store
        index = ToolSearch(_open_catalog(catalog, catalog_file, cache_dir).catalog, cache_dir=cache_dir)
        index.prepare(chosen)
        where = f"; embeddings kept in {cache_dir}" if cache_dir is not None else ""
        return f"prepared {len(index.catalog)} tools for the {chosen} ranker{_printable(where)}"
    if (query is None) == (queries_file is None):
        raise SearchUsageError("give either a QUERY or --queries FILE (one of them, not both)")
    index = _open_catalog(catalog, catalog_file, cache_dir)
    if queries_file is not None:
        return _run_queries(index, queries_file, limit, chosen, on_skipped)
    assert query is not None
    result = index.search(query, limit=limit, ranker=chosen)
    if as_json:
        return json.dumps([{"name": h.name, "score": round(h.score, 6)} for h in result.hits])
    return _text_report(query, result)


def _run_queries(
    index: ToolSearch,
    source: str | Path,
    limit: int,
    ranker: RankerName,
    on_skipped: Callable[[str], None] | None,
) -> str:
    """One `{"id", "results"}` JSON line per valid query of the file, in its order."""
    queries, problems = read_queries(source)
    for problem in problems:
        where = f"{source_name(source)}:{problem.line}: {problem.message}"
        if on_skipped is None:
            raise SearchUsageError(where)
        on_skipped(f"{where}; skipped")
    out = []
    for item in queries:
        result = index.search(item.text, limit=limit, ranker=ranker)
        out.append(json.dumps({"id": item.id, "results": result.names}))
    return "\n".join(out)
