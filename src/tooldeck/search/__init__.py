"""Search over tool catalogs: the engine behind `tool_search` and `tooldeck search`.

`ToolSearch` ranks a `Catalog` of `{name, description, parameters}` entries for a query in any
of the `tool_search` forms (free text, `select:a,b`, `/regex/`, `+term rest`) with one of the
rankers: `bm25` (lexical, no model; `ToolSearch`'s default), `semantic` (MiniLM embeddings, the
semantic extra), `hybrid` (both) or `auto` (hybrid when the extra is installed, else bm25; the
default of `tool_search.ranker`). Importing this package loads neither numpy nor the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

if TYPE_CHECKING:
    from tooldeck.search.catalog import Catalog, CatalogEntry
    from tooldeck.search.engine import (
        RANKERS,
        RankerName,
        SearchHit,
        SearchResult,
        SearchSettings,
        ToolSearch,
        search_index,
    )
    from tooldeck.search.errors import CatalogError, SearchUsageError, SemanticUnavailable
    from tooldeck.search.search_cli import search_cli

__all__ = [
    "RANKERS",
    "Catalog",
    "CatalogEntry",
    "CatalogError",
    "RankerName",
    "SearchHit",
    "SearchResult",
    "SearchSettings",
    "SearchUsageError",
    "SemanticUnavailable",
    "ToolSearch",
    "search_cli",
    "search_index",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
