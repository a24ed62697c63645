"""The search package's public names are pinned, and each resolves lazily to a real object."""

from __future__ import annotations

import tooldeck.search as search


def test_all_is_pinned() -> None:
    assert sorted(search.__all__) == sorted(
        [
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
    )
    for name in search.__all__:
        assert getattr(search, name) is not None
    assert search.RANKERS == ("bm25", "semantic", "hybrid", "auto")
