"""The lexical ranker: BM25F over a tool's fields, with phrase pairs and query-coverage.

Each entry is analysed once (terms per field, cached by the entry's fingerprint), so adding or
removing tools re-analyses only those tools. The corpus statistics BM25 needs (document
frequencies, average field lengths) change with every add or remove, so the scoring tables are
recompiled from the cached analyses on the first query after a change: the result is exactly
what a fresh build of the same catalog gives.

Scoring, for a query with terms q and a tool d:
  - BM25F: each field's term counts are length-normalised within that field and weighted (the
    name counts most), summed into one pseudo-frequency per term, then saturated with k1 and
    multiplied by the term's IDF. Query terms count once each (a repeated word is not more
    important in a one-line request).
  - Adjacent query term pairs that also occur adjacently in the tool's name or description
    ("air quality", "stock price") add a smaller phrase score.
  - The sum is multiplied by coverage ** p, where coverage is the IDF mass of the query terms
    the tool matches divided by the IDF mass of all known query terms: a tool matching most of
    the request beats one matching a single rare word.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tooldeck.search.catalog import Catalog, CatalogEntry
from tooldeck.search.fields import entry_fields
from tooldeck.search.text import Analyzer, bigrams, default_analyzer

Scores = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class LexicalSettings:
    """Constants of the lexical ranker (picked on public dev queries, checked by two-fold CV)."""

    k1: float = 1.2
    b: float = 0.5
    # name, description, parameter names, parameter descriptions, parameter values (enum)
    field_weights: tuple[float, float, float, float, float] = (3.0, 1.0, 0.6, 0.6, 0.6)
    phrase_weight: float = 0.3
    coverage_power: float = 0.5


@dataclass(frozen=True, slots=True)
class Analysis:
    """One entry's terms as parallel arrays: term id, field number, count; plus field lengths."""

    term_ids: npt.NDArray[np.int64]
    fields: npt.NDArray[np.int64]
    counts: npt.NDArray[np.float64]
    lengths: tuple[int, ...]


class Vocabulary:
    """Term -> id, growing only, so ids stay valid in every snapshot taken earlier."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id_of(self, term: str) -> int:
        found = self.ids.get(term)
        if found is None:
            found = self.ids[term] = len(self.ids)
        return found


def analyse(entry: CatalogEntry, analyzer: Analyzer, vocab: Vocabulary) -> Analysis:
    texts = entry_fields(entry).as_tuple()
    per_field = [analyzer.terms(t) for t in texts]
    per_field.append(bigrams(per_field[0]) + bigrams(per_field[1]))
    ids: list[int] = []
    fields: list[int] = []
    counts: list[float] = []
    for number, terms in enumerate(per_field):
        for term, count in Counter(terms).items():
            ids.append(vocab.id_of(term))
            fields.append(number)
            counts.append(float(count))
    return Analysis(
        np.asarray(ids, dtype=np.int64),
        np.asarray(fields, dtype=np.int64),
        np.asarray(counts, dtype=np.float64),
        tuple(len(terms) for terms in per_field),
    )


@dataclass(frozen=True, slots=True)
class Compiled:
    """The scoring tables for one catalog state; immutable once built, shared by readers.

    The postings of term id t are `docs[starts[t]:ends[t]]` with weights `weights[...]`.
    """

    names: tuple[str, ...]
    vocab: Vocabulary
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    docs: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float64]
    idf: npt.NDArray[np.float64]

    def term_id(self, term: str) -> int | None:
        found = self.vocab.ids.get(term)
        return found if found is not None and found < len(self.idf) else None


def compile_tables(
    names: Sequence[str], docs: Sequence[Analysis], vocab: Vocabulary, settings: LexicalSettings
) -> Compiled:
    """BM25F weight of every (term, document) pair, grouped by term, in a few array passes."""
    n, size = len(docs), len(vocab.ids)
    weights = np.asarray([*settings.field_weights, settings.phrase_weight], dtype=np.float64)
    if n == 0:
        none = np.zeros(size, dtype=np.int64)
        return Compiled((), vocab, none, none, np.zeros(0, np.int64), np.zeros(0, np.float64), np.zeros(size))
    lengths = np.asarray([d.lengths for d in docs], dtype=np.float64)
    avg = np.maximum(lengths.mean(axis=0), 1e-9)
    b = settings.b
    norms = weights / (1.0 - b + b * lengths / avg)
    term_ids = np.concatenate([d.term_ids for d in docs])
    fields = np.concatenate([d.fields for d in docs])
    doc_idx = np.repeat(np.arange(n, dtype=np.int64), [len(d.term_ids) for d in docs])
    contrib = np.concatenate([d.counts for d in docs]) * norms[doc_idx, fields]
    key = term_ids * n + doc_idx
    order = np.argsort(key, kind="stable")  # stable: each pair's fields add up in one fixed order
    key = key[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    pseudo = np.add.reduceat(contrib[order], first) if len(first) else np.zeros(0)
    pair_term, pair_doc = key[first] // n, key[first] % n
    df = np.bincount(pair_term, minlength=size).astype(np.float64)
    idf = np.where(df > 0, np.log(1.0 + (n - df + 0.5) / (df + 0.5)), 0.0)
    k1 = settings.k1
    saturated = pseudo * (k1 + 1.0) / (pseudo + k1) * idf[pair_term]
    ids = np.arange(size)
    starts = np.searchsorted(pair_term, ids, side="left")
    ends = np.searchsorted(pair_term, ids, side="right")
    return Compiled(tuple(names), vocab, starts, ends, pair_doc, saturated, idf)


def score(compiled: Compiled, query: Mapping[str, float], settings: LexicalSettings) -> Scores:
    """Scores of every document (catalog order) for weighted query terms.

    Keys with a space are phrase pairs: they add to the score but not to coverage. All postings
    of the query are gathered into one array and summed per document in one pass, so a long
    query costs little more than a short one.
    """
    n = len(compiled.names)
    found = [
        (tid, query[term], " " not in term)
        for term in sorted(query)
        if (tid := compiled.term_id(term)) is not None
    ]
    if not found or n == 0:
        return np.zeros(n, dtype=np.float64)
    tids = np.asarray([f[0] for f in found], dtype=np.int64)
    qweights = np.asarray([f[1] for f in found], dtype=np.float64)
    coverage = qweights * compiled.idf[tids] * np.asarray([f[2] for f in found], dtype=np.float64)
    starts, lengths = compiled.starts[tids], compiled.ends[tids] - compiled.starts[tids]
    # positions of every posting of every query term, term after term
    first = np.cumsum(lengths) - lengths
    positions = np.repeat(starts - first, lengths) + np.arange(int(lengths.sum()))
    docs = compiled.docs[positions]
    weights = compiled.weights[positions] * np.repeat(qweights, lengths)
    total = np.asarray(np.bincount(docs, weights=weights, minlength=n), dtype=np.float64)
    mass = float(coverage.sum())
    if mass <= 0.0:
        return total
    covered = np.asarray(
        np.bincount(docs, weights=np.repeat(coverage, lengths), minlength=n), dtype=np.float64
    )
    return total * np.power(covered / mass, settings.coverage_power)


def query_terms(text: str, analyzer: Analyzer) -> dict[str, float]:
    """The weighted terms of a free-text query: each distinct term and adjacent pair once."""
    terms = analyzer.terms(text)
    out = dict.fromkeys(terms, 1.0)
    out.update(dict.fromkeys(bigrams(terms), 1.0))
    return out


class LexicalIndex:
    """BM25F over a catalog, updated incrementally; `snapshot()` is safe to use from any thread."""

    def __init__(self, *, settings: LexicalSettings | None = None, analyzer: Analyzer | None = None) -> None:
        self.settings = settings or LexicalSettings()
        self.analyzer = analyzer or default_analyzer()
        self._lock = threading.Lock()
        self._vocab = Vocabulary()
        self._analyses: dict[str, Analysis] = {}  # by entry fingerprint
        self._catalog = Catalog()
        self._compiled: Compiled | None = None

    def update(self, catalog: Catalog) -> None:
        """Make the index describe `catalog`, analysing only entries it has not seen."""
        with self._lock:
            for entry in catalog:
                if entry.fingerprint not in self._analyses:
                    self._analyses[entry.fingerprint] = analyse(entry, self.analyzer, self._vocab)
            keep = {e.fingerprint for e in catalog}
            for fp in [fp for fp in self._analyses if fp not in keep]:
                del self._analyses[fp]
            self._catalog = catalog
            self._compiled = None

    def snapshot(self) -> Compiled:
        """The scoring tables of the current catalog, compiled on first use after a change."""
        with self._lock:
            if self._compiled is None:
                docs = [self._analyses[e.fingerprint] for e in self._catalog]
                self._compiled = compile_tables(self._catalog.names, docs, self._vocab, self.settings)
            return self._compiled

    def scores(self, query: Mapping[str, float]) -> tuple[Compiled, Scores]:
        compiled = self.snapshot()
        return compiled, score(compiled, query, self.settings)
