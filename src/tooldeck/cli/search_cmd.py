"""`tooldeck search QUERY`: ranked search over the deferred tools, or over any catalog file.

    tooldeck search "create an issue" [--limit K] [--ranker auto|bm25|semantic|hybrid] [--json]
    tooldeck search --catalog tools.json "weather tomorrow"          any JSON list of tools (any dialect)
    tooldeck search --catalog tools.json --queries q.jsonl           one {"id", "results"} line each
    tooldeck search --prepare                                        build the index ahead of the first search

Without `--catalog` it searches the configured deferred catalog (what `tool_search` searches),
loading the deck for it; with `--catalog` no deck is loaded. `--queries -` reads the queries
from stdin. Bad usage (no query, an unreadable file, a ranker that is not installed,
`tool_search.enabled: false` without `--catalog`) exits 2; when nothing is deferred the result
is empty (exit 0, with a note on stderr), as an empty `--catalog` gives.
A bad line of a queries file (not JSON, no string "query", an id that is not a non-empty
string or an integer, a repeated id) is reported on stderr with its line number and skipped;
the other lines are searched, and the exit status is then 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tooldeck._utils.text import for_terminal
from tooldeck.cli.common import (
    add_config,
    add_json,
    add_platform,
    assemble,
    emit,
    fail,
    load_deck,
    warn_diagnostics,
)

if TYPE_CHECKING:
    from tooldeck import Deck
    from tooldeck.search import Catalog


def configure(parser: argparse.ArgumentParser) -> None:
    add_config(parser)
    add_platform(parser)
    parser.add_argument("query", nargs="?", default=None, help="what to look for (any tool_search form)")
    parser.add_argument("--limit", "-k", type=int, default=5, help="how many tools to return (default 5)")
    parser.add_argument(
        "--ranker",
        default=None,
        help="bm25 (lexical), semantic (MiniLM), hybrid or auto (hybrid when installed, else bm25; default: config tool_search.ranker)",
    )
    parser.add_argument(
        "--catalog",
        default=None,
        help="search this JSON list of tools instead: {name, description, parameters}, or any provider's "
        "shape (what `tooldeck tools --json` prints in every dialect, MCP's tools/list)",
    )
    parser.add_argument(
        "--queries",
        default=None,
        help='a JSONL file of {"id", "query"} (\'-\' reads stdin): one JSON result line per query',
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="build the catalog's index for the ranker now (embeddings kept under the tooldeck home), "
        "so the first tool_search of a run does not wait for the model",
    )
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    from tooldeck._utils.home import tooldeck_home
    from tooldeck.search import SearchUsageError, SemanticUnavailable
    from tooldeck.search.search_cli import search_cli  # the submodule shadows the package attribute

    if not args.prepare and (args.query is None) == (args.queries is None):
        fail("give either a QUERY or --queries FILE (one of them, not both)")
    deck: Deck | None = None
    skipped: list[str] = []
    try:
        catalog: Catalog | None = None
        ranker: str = args.ranker or "auto"
        cache = tooldeck_home() / "search"
        if args.catalog is None:
            deck = load_deck(args.config)
            catalog = _deferred(deck, args.platform)
            ranker = args.ranker or deck.config.tool_search.ranker
            cache = tooldeck_home(deck.config.home, base_dir=deck.config.base_dir) / "search"
        text = search_cli(
            args.query,
            catalog=catalog,
            catalog_file=args.catalog,
            queries_file=args.queries,
            limit=args.limit,
            ranker=ranker,
            as_json=args.as_json,
            cache_dir=cache,
            on_skipped=skipped.append,
            prepare=args.prepare,
        )
    except (SearchUsageError, SemanticUnavailable) as exc:
        fail(str(exc))
    finally:
        if deck is not None:
            deck.close()
    for line in skipped:
        print(for_terminal(f"tooldeck: {line}"), file=sys.stderr)
    if text:
        emit(text)
    return 1 if skipped else 0


def _deferred(deck: Deck, platform: str | None) -> Catalog:
    """The deferred catalog of the configured loadout (what tool_search searches)."""
    from tooldeck.core import deferred_catalog

    if not deck.config.tool_search.enabled:
        fail(
            "no deferred tools to search (tool_search.enabled is false); pass --catalog FILE to search a tool list"
        )
    loadout = assemble(deck, platform)
    warn_diagnostics(deck.diagnostics(loadout))
    catalog = deferred_catalog(loadout)
    if not len(catalog):
        # Searching works, there is just nothing to find: an empty result, as an empty --catalog
        # gives (the reason goes to stderr, where a script reading the result will not trip on it).
        note = "nothing is deferred, so nothing can be found (`tooldeck explain tool_search` says why)"
        print(f"tooldeck: note: {note}", file=sys.stderr)
    return catalog
