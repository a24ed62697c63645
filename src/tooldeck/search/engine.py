"""`ToolSearch`: the front door of search over one catalog.

    index = ToolSearch(Catalog.from_json(tools))
    result = index.search("weather in Paris tomorrow", limit=5)             # ranked free text
    index.search("select:get_weather,send_mail")                             # exact names
    index.search("/^mcp__github__/")                                         # regular expression
    index.search("+slack send a message", ranker="hybrid")                   # name must hold "slack"
    [index.catalog[h.name] for h in result.hits]                             # the full entries

Rankers: `bm25` (lexical, no model; the default of these methods), `semantic` (MiniLM
embeddings), `hybrid` (both, fused) and `auto` (`hybrid` when the semantic extra is installed,
else `bm25`: the default of `tool_search.ranker` and `tooldeck search`). The lexical index is built on first use and updated incrementally by `update`;
the semantic one needs the semantic extra and is built on the first query that asks for it.
Searching is safe from many threads at once while another thread updates the catalog: each
query works on one consistent snapshot. Any query string is accepted; none raises.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from tooldeck.search.catalog import Catalog, CatalogEntry
from tooldeck.search.errors import SemanticUnavailable
from tooldeck.search.lexical import LexicalIndex, LexicalSettings, query_terms, score
from tooldeck.search.patterns import match_pattern
from tooldeck.search.query import FreeText, Pattern, Required, Select, parse_query
from tooldeck.search.semantic import QUERY_TEMPLATE, ExpansionSettings, SemanticIndex

RankerName = Literal["bm25", "semantic", "hybrid", "auto"]
RANKERS: tuple[RankerName, ...] = ("bm25", "semantic", "hybrid", "auto")
# `auto`: the best ranker installed. On the public dev queries hybrid finds the right tool in the
# top 5 for 0.82 (MetaTool) / 0.90 (BFCL) of them, bm25 for 0.63 / 0.86 (docs/disclosure.md).
AUTO_CHOICE: RankerName = "hybrid"
QueryForm = Literal["text", "select", "regex", "required"]
MAX_LIMIT = 200
Scores = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One found tool: its name exactly as the catalog spells it, and the ranker's score."""

    name: str
    score: float


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The hits of one query, best first, with what the caller may want to tell the model."""

    hits: tuple[SearchHit, ...]
    form: QueryForm
    unknown: tuple[str, ...] = ()  # names asked for with `select:` that the catalog lacks
    note: str | None = None  # e.g. a regex searched as literal text, or stopped for cost

    @property
    def names(self) -> list[str]:
        return [h.name for h in self.hits]


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """Constants of the rankers. The defaults were picked on the public dev queries (MetaTool,
    BFCL) and checked by two-fold cross-validation (`python -m benchmarks search --cv`)."""

    lexical: LexicalSettings = field(default_factory=LexicalSettings)
    expansion: ExpansionSettings = field(default_factory=ExpansionSettings)
    # The hybrid score is lexical_weight * z(lexical with expansion) + z(semantic), where z
    # standardises a ranker's scores over the catalog so the two scales can be added.
    hybrid_lexical_weight: float = 0.4
    # Hybrid (and so `auto`) returns only tools with some evidence, as bm25 returns only tools
    # sharing a word with the query: a query word in the tool (before expansion) or an embedding
    # cosine of at least this. Without it every query, however unrelated, would fill the limit
    # (and tool_search would promote that many tools). On the dev queries 0.25 drops no found tool.
    hybrid_min_similarity: float = 0.25
    # The text embedded for a query; `{query}` stands for the query (see `semantic.py`).
    query_template: str = QUERY_TEMPLATE
    # Tokens of the templated query the model reads (the lexical half reads all of it). The
    # model's cost grows with the query's length and the longest dev queries (over 100 tokens)
    # set the p99 latency. Cutting at 48 (one query in seven is longer) changed no hybrid hit@5
    # on either half of BFCL or MetaTool and took the hybrid p99 at 2,000 tools from 56 to 48 ms
    # of CPU; at 40 and 32 the semantic half lost 0.01-0.03 (see docs/disclosure.md).
    max_query_tokens: int = 48
    # The `semantic` ranker scores a tool by its whole text's cosine with the query plus this
    # times the best cosine of one of its parts (name, a description sentence, a parameter's
    # description; see `embedding_parts`), so a tool whose single sentence or parameter matches
    # is found even when the rest of its text is about something else. 0 turns it off. Hybrid
    # reads the whole text's cosine only: the parts moved its hit@5 by less than the noise
    # (docs/disclosure.md).
    semantic_parts_weight: float = 0.25

    def __post_init__(self) -> None:
        if "{query}" not in self.query_template:
            raise ValueError(f"query_template must contain '{{query}}', got {self.query_template!r}")
        if self.max_query_tokens < 8:
            raise ValueError(f"max_query_tokens must be at least 8, got {self.max_query_tokens}")
        if not 0.0 <= self.semantic_parts_weight <= 10.0:
            raise ValueError(f"semantic_parts_weight must be within 0..10, got {self.semantic_parts_weight}")


def standardise(scores: Scores) -> Scores:
    """(scores - mean) / standard deviation over the catalog; all zeros when they are all equal."""
    spread = float(scores.std()) if len(scores) else 0.0
    if spread <= 1e-12:
        return np.zeros_like(scores)
    standard: Scores = (scores - scores.mean()) / spread
    return standard


def semantic_installed() -> bool:
    """Whether the semantic extra's model files are installed (looked up, nothing imported)."""
    from tooldeck.search.minilm import model_dir

    try:
        model_dir()
    except SemanticUnavailable:
        return False
    return True


def top_hits(
    names: tuple[str, ...],
    scores: Scores,
    limit: int,
    *,
    positive_only: bool = False,
    eligible: Mask | None = None,
) -> list[SearchHit]:
    """The `limit` best (score descending, then catalog order), optionally only scores > 0
    and only the `eligible` tools."""
    keep = scores > 0 if positive_only else np.ones(len(scores), dtype=np.bool_)
    candidates = np.flatnonzero(keep if eligible is None else keep & eligible)
    if limit <= 0 or len(candidates) == 0:
        return []
    if len(candidates) > limit:
        part = np.argpartition(-scores[candidates], limit - 1)[:limit]
        # argpartition is not stable: keep every candidate tied with the last one, then sort.
        cutoff = scores[candidates[part]].min()
        candidates = candidates[scores[candidates] >= cutoff]
    ordered = candidates[np.lexsort((candidates, -scores[candidates]))][:limit]
    return [SearchHit(names[i], float(scores[i])) for i in ordered]


class ToolSearch:
    """Search over one catalog, kept current by `update` (see the module docstring)."""

    def __init__(
        self,
        catalog: Catalog | None = None,
        *,
        settings: SearchSettings | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        """`cache_dir`: where tool and word embeddings are kept between processes (optional)."""
        self.settings = settings or SearchSettings()
        self._lexical = LexicalIndex(settings=self.settings.lexical)
        self._semantic = SemanticIndex(
            analyzer=self._lexical.analyzer,
            expansion=self.settings.expansion,
            cache_dir=cache_dir,
            query_template=self.settings.query_template,
            max_query_tokens=self.settings.max_query_tokens,
        )
        self._lock = threading.RLock()  # serialises updates; searches never wait for it
        self._catalog = Catalog()
        self.update(catalog or Catalog())

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    def update(self, catalog: Catalog) -> None:
        """Switch to `catalog`; only tools not seen before are analysed (and embedded)."""
        with self._lock:
            self._lexical.update(catalog)
            self._semantic.update(catalog)
            self._catalog = catalog

    def add(self, entries: Iterable[CatalogEntry]) -> None:
        """Add tools (or replace those with the same name), keeping the others' order."""
        with self._lock:
            new = {e.name: e for e in entries}
            kept = [new.pop(e.name, e) for e in self._catalog]
            self.update(Catalog([*kept, *new.values()]))

    def remove(self, names: Iterable[str]) -> None:
        """Remove tools by name; unknown names are ignored."""
        with self._lock:
            gone = set(names)
            self.update(Catalog(e for e in self._catalog if e.name not in gone))

    def prepare(self, ranker: RankerName = "auto") -> None:
        """Build now what `ranker` needs, rather than on the first query: the lexical tables and,
        for the model's rankers, every tool's and catalog word's embedding (and for `semantic`,
        every tool part's: see `SearchSettings.semantic_parts_weight`), read from the on-disk
        store when it has them, written to it otherwise. `auto` without the semantic extra, like
        `bm25`, needs no model."""
        if ranker not in RANKERS:
            raise ValueError(f"unknown ranker {ranker!r}; one of {', '.join(RANKERS)}")
        self._lexical.snapshot()
        if ranker == "bm25" or (ranker == "auto" and not semantic_installed()):
            return
        from tooldeck.search.minilm import one_blas_thread

        with one_blas_thread():
            snapshot = self._semantic.snapshot()
            if ranker == "semantic" and self.settings.semantic_parts_weight > 0:
                self._semantic.parts(snapshot)

    def search(self, query: str, *, limit: int = 5, ranker: RankerName = "bm25") -> SearchResult:
        """Find tools for `query` in any of the query forms; never raises for odd input."""
        limit = max(0, min(int(limit), MAX_LIMIT))
        form = parse_query(query)
        catalog = self._catalog
        if isinstance(form, Select):
            return self._select(catalog, form)
        if isinstance(form, Pattern):
            found = match_pattern(catalog, form.pattern)
            hits = [SearchHit(n, 2.0) for n in found.in_name] + [
                SearchHit(n, 1.0) for n in found.in_description
            ]
            return SearchResult(tuple(hits[:limit]), "regex", note=found.note)
        if isinstance(form, Required):
            return SearchResult(tuple(self._required(form, limit, ranker)), "required")
        assert isinstance(form, FreeText)
        if not any(ch.isalnum() for ch in form.text):
            return SearchResult((), "text")  # nothing to rank by; every ranker would guess
        return SearchResult(tuple(self.rank(form.text, limit=limit, ranker=ranker)), "text")

    def rank(self, text: str, *, limit: int = 5, ranker: RankerName = "bm25") -> list[SearchHit]:
        """Free-text ranking only (no query forms): the `limit` best tools for `text`."""
        names, scores, eligible = self.scores(text, ranker)
        return top_hits(names, scores, limit, eligible=eligible)

    def scores(self, text: str, ranker: RankerName = "bm25") -> tuple[tuple[str, ...], Scores, Mask]:
        """Every tool's score for `text` (catalog order), and which tools may be returned."""
        if ranker == "auto":
            if semantic_installed():
                try:
                    return self.scores(text, AUTO_CHOICE)
                except SemanticUnavailable:  # installed but unreadable: the lexical ranker still works
                    pass
            ranker = "bm25"
        if ranker == "bm25":
            compiled, lexical = self._lexical.scores(query_terms(text, self._lexical.analyzer))
            return compiled.names, lexical, lexical > 0
        if ranker not in RANKERS:
            raise ValueError(f"unknown ranker {ranker!r}; one of {', '.join(RANKERS)}")
        from tooldeck.search.minilm import one_blas_thread

        with one_blas_thread():  # a query's products are small: BLAS threads only wait for each other
            return self._model_scores(text, ranker)

    def _model_scores(self, text: str, ranker: RankerName) -> tuple[tuple[str, ...], Scores, Mask]:
        if ranker == "semantic":
            snapshot = self._semantic.snapshot()
            weight = self.settings.semantic_parts_weight
            semantic = self._semantic.scores(snapshot, text, parts_weight=weight)
            return snapshot.names, semantic, np.ones(len(snapshot.names), dtype=np.bool_)
        names, lexical, semantic, plain = self._components(text, None)
        fused = self.settings.hybrid_lexical_weight * standardise(lexical) + standardise(semantic)
        return names, fused, (plain > 0) | (semantic >= self.settings.hybrid_min_similarity)

    def components(
        self, text: str, *, expand: bool = True, query_template: str | None = None
    ) -> tuple[tuple[str, ...], Scores, Scores]:
        """The two halves of the hybrid score: lexical (with semantic expansion) and semantic.

        Both are over the same catalog snapshot, in catalog order. Needs the semantic extra.
        `query_template` replaces the settings' one for this call (for cross-validation).
        """
        if not expand:
            snapshot = self._semantic.snapshot()
            semantic = self._semantic.scores(snapshot, text, template=query_template)
            return snapshot.names, np.zeros(len(snapshot.names)), semantic
        names, lexical, semantic, _ = self._components(text, query_template)
        return names, lexical, semantic

    def _components(
        self, text: str, query_template: str | None
    ) -> tuple[tuple[str, ...], Scores, Scores, Scores]:
        """`components`, and the plain lexical scores (no expansion) of the same snapshot."""
        while True:  # an update between the two snapshots would pair different catalogs
            snapshot = self._semantic.snapshot()
            compiled = self._lexical.snapshot()
            if compiled.names == snapshot.names:
                break
        semantic = self._semantic.scores(snapshot, text, template=query_template)
        terms = query_terms(text, self._lexical.analyzer)
        plain = score(compiled, terms, self.settings.lexical)
        for term, weight in self._semantic.expand(snapshot, text).items():
            terms.setdefault(term, weight)
        return snapshot.names, score(compiled, terms, self.settings.lexical), semantic, plain

    def _select(self, catalog: Catalog, form: Select) -> SearchResult:
        folded: dict[str, list[str]] = {}
        for name in catalog.names:
            folded.setdefault(name.casefold(), []).append(name)
        hits: list[SearchHit] = []
        unknown: list[str] = []
        for asked in form.names:
            if asked in catalog:
                found = asked
            elif len(folded.get(asked.casefold(), ())) == 1:
                found = folded[asked.casefold()][0]
            else:
                unknown.append(asked)
                continue
            if all(h.name != found for h in hits):
                hits.append(SearchHit(found, 1.0))
        return SearchResult(tuple(hits), "select", unknown=tuple(unknown))

    def _required(self, form: Required, limit: int, ranker: RankerName) -> list[SearchHit]:
        names, scores, _ = self.scores(form.rest or " ".join(form.terms), ranker)
        idx = np.asarray(
            [i for i, n in enumerate(names) if all(t in n.lower() for t in form.terms)], dtype=np.int64
        )
        if len(idx) == 0 or limit <= 0:
            return []
        ordered = idx[np.lexsort((idx, -scores[idx]))][:limit]
        return [SearchHit(names[i], float(scores[i])) for i in ordered]


_CACHE_SIZE = 8
_cache: OrderedDict[str, ToolSearch] = OrderedDict()
_cache_lock = threading.Lock()


def search_index(catalog: Catalog, *, cache_dir: str | os.PathLike[str] | None = None) -> ToolSearch:
    """The process-wide `ToolSearch` for a catalog, built once per catalog content hash.

    The few most recently used indexes are kept; `cache_dir` applies when one is first built.
    """
    with _cache_lock:
        found = _cache.get(catalog.content_hash)
        if found is not None:
            _cache.move_to_end(catalog.content_hash)
            return found
        index = ToolSearch(catalog, cache_dir=cache_dir)
        _cache[catalog.content_hash] = index
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return index
