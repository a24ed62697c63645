"""How far any fusion of the two signals could go: upper bounds for the hybrid ranker.

The hybrid score is `w * z(lexical) + z(semantic)` with one weight for every query. Two
bounds show what no choice of fusion over these same two signals can beat by much:

  * **oracle weight**: for each query, the best of 32 weights (0 to 3 in steps of 0.1, and
    the lexical half alone) chosen *knowing the gold tool*. A fusion that adapts its weight
    to the query, however cleverly, scores at most this (up to the grid).
  * **union of top 5**: the share of queries whose gold tool is in the top 5 of the lexical
    ranker or of the semantic ranker (what a perfect interleaving of the two lists reaches).

Next to them, the hybrid's misses are broken down: queries not written in a Latin script
(MiniLM's vocabulary is English; the lexical side cannot match them either), and misses whose
gold tool is outside the top 20 (the two signals both point elsewhere, often at a tool that
does the same thing: BFCL pools near-equal tools, MetaTool's labels are noisy).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from benchmarks.search_eval import Dataset
from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import SearchSettings, ToolSearch, standardise
from tooldeck.search.errors import SemanticUnavailable

ORACLE_WEIGHTS = (*(round(0.1 * i, 1) for i in range(31)), float("inf"))
_NOT_LATIN = re.compile(r"[^\x00-\u024f\u2000-\u206f]")


def _top5(scores: np.ndarray[Any, Any]) -> set[int]:
    return {int(i) for i in np.lexsort((np.arange(len(scores)), -scores))[:5]}


def _query_bounds(
    lexical: np.ndarray[Any, Any],
    semantic: np.ndarray[Any, Any],
    bm25: np.ndarray[Any, Any],
    gold: set[int],
    weight: float,
) -> tuple[bool, bool, bool, int]:
    """(hybrid hit@5, oracle-weight hit@5, union hit@5, the gold tool's best hybrid rank, 0-based)."""
    zl, zs = standardise(lexical), standardise(semantic)
    fused = weight * zl + zs
    hybrid = bool(gold & _top5(fused))
    oracle = hybrid or any(
        bool(gold & _top5(zl if w == float("inf") else w * zl + zs)) for w in ORACLE_WEIGHTS
    )
    union = bool(gold & (_top5(np.where(bm25 > 0, bm25, -np.inf)) | _top5(semantic)))
    rank = min(int((fused > fused[g]).sum()) for g in gold)
    return hybrid, oracle, union, rank


def ceiling(ds: Dataset, index: ToolSearch | None = None) -> dict[str, Any]:
    """The bounds of one dataset; the union is over the `bm25` and `semantic` rankers' lists.
    `index`: the dataset's index with the default settings, if one is built already."""
    index = index or ToolSearch(Catalog.from_json(ds.tools))
    weight = SearchSettings().hybrid_lexical_weight
    rows = []
    try:
        for q in ds.queries:
            names, lexical, semantic = index.components(q.text)
            _, bm25, _ = index.scores(q.text, "bm25")
            gold = {names.index(g) for g in q.gold}
            bounds = _query_bounds(lexical, semantic, bm25, gold, weight)
            rows.append((*bounds, bool(_NOT_LATIN.search(q.text))))
    except SemanticUnavailable as exc:
        return {"skipped": str(exc)}
    n = len(rows)
    misses = [r for r in rows if not r[0]]
    return {
        "queries": n,
        "hybrid_hit@5": round(sum(r[0] for r in rows) / n, 4),
        "oracle_weight_hit@5": round(sum(r[1] for r in rows) / n, 4),
        "union_top5_hit@5": round(sum(r[2] for r in rows) / n, 4),
        "hybrid_misses": len(misses),
        "misses_not_latin_script": sum(r[4] for r in misses),
        "misses_gold_outside_top20": sum(r[3] >= 20 for r in misses),
    }


def ceilings(data: dict[str, Dataset], indexes: Mapping[str, ToolSearch] | None = None) -> dict[str, Any]:
    return {name: ceiling(ds, (indexes or {}).get(name)) for name, ds in data.items()}
