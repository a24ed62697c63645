"""What each signal tried on the rankers does to hit@5, per fixed half of each dataset (`--signals`).

The third round of #42 (better search without fusion) tried to make the two signals themselves
better. Every change here is scored on the two halves of each dataset (`fold_of`), for the
`semantic` ranker alone and for `hybrid` (the shipped fusion over the changed semantic half, or
over the changed lexical half), so a change can be kept only when it helps on both halves and
hurts neither dataset. The rows:

  * `parts wN`: the whole text's cosine plus N times the best cosine of one of the tool's parts
    (name, a description sentence, a parameter's description: `embedding_parts`);
  * `centred`, `all-but-the-top`: the catalog's mean vector (and its first principal direction)
    removed from tool and query vectors before the cosine;
  * `no boilerplate`, `no stopwords`, `no numbers`: the query cleaned before it is embedded;
  * `rocchio`: the query vector moved toward its top 5 tools' vectors;
  * `lexical prf`: the first pass's top 3 tools' name words added to the lexical query;
  * `hub penalty`: each tool's cosine lowered by its mean cosine to its 10 nearest tools.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.search_eval import Dataset, fold_of
from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import SearchSettings, ToolSearch, standardise
from tooldeck.search.errors import SemanticUnavailable
from tooldeck.search.lexical import LexicalIndex, query_terms, score
from tooldeck.search.semantic import SemanticIndex
from tooldeck.search.text import STOPWORDS

Matrix = npt.NDArray[np.float64]
_BOILERPLATE = re.compile(
    r"\b(?:(?:can|could|would|will) you(?: please)?(?: help me)?(?: to)?|please|kindly|help me(?: to)?"
    r"|i(?:'d| would) like(?: you)? to|i (?:want|need|wish)(?: you)? to|i(?:'m| am) (?:looking|searching) for"
    r"|i(?:'m| am) interested in|is it possible to)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\b\d[\d.,:/-]*\b")
_TOKEN = re.compile(r"[A-Za-z0-9']+|[^\sA-Za-z0-9']")


def _kept(cleaned: str, query: str) -> str:
    cleaned = re.sub(r"\s+", " ", cleaned).strip(" ,")
    return cleaned if re.search(r"\w", cleaned) else query


CLEANERS: dict[str, Callable[[str], str]] = {
    "no boilerplate": lambda q: _kept(_BOILERPLATE.sub(" ", q), q),
    "no stopwords": lambda q: _kept(" ".join(t for t in _TOKEN.findall(q) if t.lower() not in STOPWORDS), q),
    "no numbers": lambda q: _kept(_NUMBER.sub(" ", q), q),
}


def _unit(x: Matrix) -> Matrix:
    out: Matrix = x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)
    return out


def _hit5(scores: Matrix, gold: npt.NDArray[np.bool_], eligible: npt.NDArray[np.bool_] | None = None) -> Any:
    scores = np.where(eligible, scores, -np.inf) if eligible is not None else scores
    top = np.argsort(-scores, axis=1, kind="stable")[:, :5]
    return (np.take_along_axis(gold, top, 1) & np.isfinite(np.take_along_axis(scores, top, 1))).any(1)


class _Signals:
    """One dataset's shared inputs: query and tool vectors, lexical scores, gold, halves."""

    def __init__(self, ds: Dataset, cache_dir: str | None) -> None:
        self.ds = ds
        catalog = Catalog.from_json(ds.tools)
        self.settings = SearchSettings()
        self.index = ToolSearch(catalog, cache_dir=cache_dir)
        self.model = SemanticIndex(cache_dir=cache_dir, max_query_tokens=self.settings.max_query_tokens)
        self.model.update(catalog)
        self.snapshot = self.model.snapshot()
        self.tools = self.snapshot.tools.astype(np.float64)
        self.queries = np.vstack([self.model.encode_query(q.text) for q in ds.queries]).astype(np.float64)
        rows = [self.index.components(q.text) for q in ds.queries]
        self.lexical = np.vstack([r[1] for r in rows])
        self.plain = np.vstack([self.index.scores(q.text, "bm25")[1] for q in ds.queries])
        self.whole = self.queries @ self.tools.T
        position = {n: i for i, n in enumerate(self.snapshot.names)}
        self.gold = np.zeros(self.whole.shape, dtype=np.bool_)
        for i, q in enumerate(ds.queries):
            self.gold[i, [position[g] for g in q.gold if g in position]] = True
        self.folds = np.asarray([fold_of(q.id) for q in ds.queries])

    def row(self, semantic: Matrix, lexical: Matrix | None = None) -> dict[str, list[float]]:
        fused = self.settings.hybrid_lexical_weight * _z(self.lexical if lexical is None else lexical)
        eligible = (self.plain > 0) | (self.whole >= self.settings.hybrid_min_similarity)
        hits = {
            "semantic": _hit5(semantic, self.gold),
            "hybrid": _hit5(fused + _z(semantic), self.gold, eligible),
        }
        return {k: [round(float(v[self.folds == f].mean()), 4) for f in (0, 1)] for k, v in hits.items()}

    def parts(self, weight: float) -> Matrix:
        parts = self.model.parts(self.snapshot)
        best = np.maximum.reduceat(self.queries @ parts.vectors.T.astype(np.float64), parts.starts, axis=1)
        return self.whole + weight * best

    def centred(self, directions: int) -> Matrix:
        mean = self.tools.mean(axis=0)
        tools, queries = self.tools - mean, self.queries - mean
        if directions:
            top = np.linalg.svd(tools, full_matrices=False)[2][:directions]
            tools, queries = tools - tools @ top.T @ top, queries - queries @ top.T @ top
        return _unit(queries) @ _unit(tools).T

    def cleaned(self, clean: Callable[[str], str]) -> Matrix:
        vectors = np.vstack([self.model.encode_query(clean(q.text)) for q in self.ds.queries])
        return vectors.astype(np.float64) @ self.tools.T

    def rocchio(self, k: int = 5, beta: float = 0.3) -> Matrix:
        top = np.argsort(-self.whole, axis=1, kind="stable")[:, :k]
        return _unit(self.queries + beta * self.tools[top].mean(axis=1)) @ self.tools.T

    def hub_penalty(self, k: int = 10, weight: float = 0.25) -> Matrix:
        near = self.tools @ self.tools.T
        np.fill_diagonal(near, -1.0)
        penalty: Matrix = np.sort(near, axis=1)[:, -k:].mean(axis=1)
        return self.whole - weight * penalty

    def lexical_prf(self, k: int = 3, weight: float = 0.2) -> Matrix:
        lexical = LexicalIndex(settings=self.settings.lexical)
        lexical.update(Catalog.from_json(self.ds.tools))
        compiled = lexical.snapshot()
        eligible = (self.plain > 0) | (self.whole >= self.settings.hybrid_min_similarity)
        first = np.where(
            eligible, self.settings.hybrid_lexical_weight * _z(self.lexical) + _z(self.whole), -np.inf
        )
        out = []
        for i, q in enumerate(self.ds.queries):
            terms = query_terms(q.text, lexical.analyzer)
            for term, w in self.model.expand(self.snapshot, q.text).items():
                terms.setdefault(term, w)
            for j in np.argsort(-first[i], kind="stable")[:k]:
                for term in lexical.analyzer.terms(self.snapshot.names[j]):
                    terms.setdefault(term, weight)
            out.append(score(compiled, terms, self.settings.lexical))
        return np.vstack(out)


def _z(scores: Matrix) -> Matrix:
    return np.vstack([standardise(row) for row in scores])


def signal_rows(ds: Dataset, cache_dir: str | None = None) -> dict[str, dict[str, list[float]]]:
    """hit@5 per half ([half 0, half 1]) of `semantic` and `hybrid` under each signal."""
    s = _Signals(ds, cache_dir)
    rows = {"none (whole text)": s.row(s.whole)}
    for weight in sorted({0.25, 0.5, 1.0, s.settings.semantic_parts_weight}):
        rows[f"parts w{weight}"] = s.row(s.parts(weight))
    rows["centred"] = s.row(s.centred(0))
    rows["all-but-the-top 1"] = s.row(s.centred(1))
    for label, clean in CLEANERS.items():
        rows[label] = s.row(s.cleaned(clean))
    rows["rocchio k5 0.3"] = s.row(s.rocchio())
    rows["hub penalty k10 0.25"] = s.row(s.hub_penalty())
    rows["lexical prf k3 0.2"] = s.row(s.whole, s.lexical_prf())
    return rows


def signals(data: dict[str, Dataset], cache_dir: str | None = None) -> dict[str, Any]:
    """`signal_rows` of each dataset; the embeddings go through `cache_dir` (a temporary folder
    when None), so the second reader of a catalog's vectors reads them rather than embeds."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        try:
            return {name: signal_rows(ds, cache_dir or scratch) for name, ds in data.items()}
        except SemanticUnavailable as exc:
            return {"skipped": str(exc)}
