"""Two-fold cross-validation of the search constants on the public dev queries.

The queries of each dataset are split in two fixed halves (by a hash of the query id). For
each half, the constants are chosen on that half alone (best mean hit@5 over both datasets)
and scored on the other half, next to the shipped defaults scored on the same other half. If
the held-out scores of the chosen and the shipped constants are close, the defaults are not
fitted to the particular dev queries. Two groups of constants are checked:

  * lexical: the name field's weight, BM25's length normalisation b, the phrase-pair weight
    and the coverage exponent;
  * hybrid: the request template the query is embedded in (none, or one of six) and the
    weight of the (expanded) lexical half against the semantic half, chosen together; plain
    reciprocal-rank fusion of the two is scored alongside for reference.

Each group also reports its out-of-fold hit@5 per dataset: every query scored with the
constants chosen on the half it is not in, which is the honest estimate for unseen queries
drawn the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from benchmarks.search_eval import Dataset, fold_of
from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import SearchSettings, ToolSearch, standardise, top_hits
from tooldeck.search.errors import SemanticUnavailable
from tooldeck.search.lexical import LexicalSettings

HYBRID_WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0)
# Request templates for the query embedding; "{query}" alone is the query as typed.
QUERY_TEMPLATES = {
    "raw": "{query}",
    "which_tool": "Which tool should I use for this request: {query}",
    "tool_to_help": "A tool to help with this request: {query}",
    "which_tool_after": "{query} Which tool should I use?",
    "need_a_tool": "I need a tool for this: {query}",
    "user_request": "User request: {query}",
    "tool_that": "A tool that can do this: {query}",
}


def _lexical_grid() -> list[LexicalSettings]:
    base = LexicalSettings()
    grid = []
    for name_w, b, phrase, cover in itertools.product((1.0, 3.0, 5.0), (0.5, 0.75), (0.0, 0.3), (0.0, 0.5)):
        weights = (name_w, *base.field_weights[1:])
        grid.append(replace(base, field_weights=weights, b=b, phrase_weight=phrase, coverage_power=cover))
    return grid


def _hits(index: ToolSearch, ds: Dataset) -> np.ndarray[Any, np.dtype[np.bool_]]:
    return np.asarray(
        [bool(set(q.gold) & set(h.name for h in index.rank(q.text, limit=5))) for q in ds.queries]
    )


def _choose(
    table: dict[str, dict[str, np.ndarray[Any, Any]]], folds: dict[str, np.ndarray[Any, Any]], fold: int
) -> str:
    def mean_on(key: str, f: int) -> float:
        return float(np.mean([table[ds][key][folds[ds] == f].mean() for ds in table]))

    return max(table[next(iter(table))], key=lambda key: (mean_on(key, fold), key == "default"))


def out_of_fold(
    table: dict[str, dict[str, np.ndarray[Any, Any]]], folds: dict[str, np.ndarray[Any, Any]]
) -> dict[str, float]:
    """hit@5 per dataset of every query under the constants chosen on the other half."""
    held: dict[str, list[np.ndarray[Any, Any]]] = {ds: [] for ds in table}
    for fold in (0, 1):
        chosen = _choose(table, folds, fold)
        for ds, rows in table.items():
            held[ds].append(rows[chosen][folds[ds] != fold])
    return {ds: round(float(np.concatenate(parts).mean()), 4) for ds, parts in held.items()}


def _report(
    table: dict[str, dict[str, np.ndarray[Any, Any]]], folds: dict[str, np.ndarray[Any, Any]]
) -> list[dict[str, Any]]:
    out = []
    for fold in (0, 1):
        chosen = _choose(table, folds, fold)
        held = 1 - fold
        out.append(
            {
                "chosen_on_half": fold,
                "chosen": chosen,
                "held_out_hit@5_chosen": {
                    ds: round(float(v[chosen][folds[ds] == held].mean()), 4) for ds, v in table.items()
                },
                "held_out_hit@5_default": {
                    ds: round(float(v["default"][folds[ds] == held].mean()), 4) for ds, v in table.items()
                },
            }
        )
    return out


def cv_lexical(data: dict[str, Dataset]) -> dict[str, Any]:
    default = LexicalSettings()
    table: dict[str, dict[str, np.ndarray[Any, Any]]] = {}
    for name, ds in data.items():
        catalog = Catalog.from_json(ds.tools)
        table[name] = {}
        for settings in _lexical_grid():
            key = "default" if settings == default else _label(settings)
            table[name][key] = _hits(ToolSearch(catalog, settings=SearchSettings(lexical=settings)), ds)
        if "default" not in table[name]:
            table[name]["default"] = _hits(ToolSearch(catalog), ds)
    folds = {n: np.asarray([fold_of(q.id) for q in ds.queries]) for n, ds in data.items()}
    return {"halves": _report(table, folds), "out_of_fold_hit@5": out_of_fold(table, folds)}


def _label(s: LexicalSettings) -> str:
    return f"name={s.field_weights[0]} b={s.b} phrase={s.phrase_weight} coverage={s.coverage_power}"


def _rrf(lexical: np.ndarray[Any, Any], semantic: np.ndarray[Any, Any], k: int = 60) -> np.ndarray[Any, Any]:
    fused = np.zeros(len(lexical))
    for scores in (lexical, semantic):
        order = np.lexsort((np.arange(len(scores)), -scores))[:100]
        fused[order] += 1.0 / (k + np.arange(1, len(order) + 1))
    return fused


def _hybrid_rows(index: ToolSearch, ds: Dataset, default: tuple[str, float]) -> dict[str, list[bool]]:
    rows: dict[str, list[bool]] = {}
    for q in ds.queries:
        gold = set(q.gold)
        for label, template in QUERY_TEMPLATES.items():
            names, lexical, semantic = index.components(q.text, query_template=template)
            zl, zs = standardise(lexical), standardise(semantic)
            for w in HYBRID_WEIGHTS:
                key = "default" if (template, w) == default else f"template={label} lexical_weight={w}"
                top = top_hits(names, w * zl + zs, 5)
                rows.setdefault(key, []).append(bool(gold & {h.name for h in top}))
            if label == "raw":
                top = top_hits(names, _rrf(lexical, semantic), 5, positive_only=True)
                rows.setdefault("rrf60 (reference)", []).append(bool(gold & {h.name for h in top}))
    return rows


def cv_hybrid(data: dict[str, Dataset], indexes: Mapping[str, ToolSearch] | None = None) -> dict[str, Any]:
    """The hybrid constants, over each dataset's index with the default settings (`indexes`: those
    built already, by name; the others are built here)."""
    settings = SearchSettings()
    default = (settings.query_template, settings.hybrid_lexical_weight)
    table: dict[str, dict[str, np.ndarray[Any, Any]]] = {}
    for name, ds in data.items():
        index = (indexes or {}).get(name) or ToolSearch(Catalog.from_json(ds.tools))
        try:
            rows = _hybrid_rows(index, ds, default)
        except SemanticUnavailable as exc:
            return {"skipped": str(exc)}
        table[name] = {k: np.asarray(v) for k, v in rows.items()}
    folds = {n: np.asarray([fold_of(q.id) for q in ds.queries]) for n, ds in data.items()}
    return {"halves": _report(table, folds), "out_of_fold_hit@5": out_of_fold(table, folds)}


def cross_validate(
    data: dict[str, Dataset], indexes: Mapping[str, ToolSearch] | None = None
) -> dict[str, Any]:
    return {"lexical": cv_lexical(data), "hybrid": cv_hybrid(data, indexes)}
