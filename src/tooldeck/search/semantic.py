"""The semantic ranker: cosine similarity of MiniLM sentence embeddings, and word neighbours.

Each tool is embedded once as "<name split into words>: <description> Parameters: <parameter
descriptions>" (the parameter names when no parameter is described), cached by that text, so an
incremental update encodes only new or changed tools. A query is embedded at search time inside
a short request template ("Which tool should I use for this request: <query>") and compared
with every tool. The template moves the query's vector from the topic of the request towards
"which tool does this": on the public dev queries it raised the semantic ranker's hit@5 from
0.753 to 0.785 (MetaTool) and, with the parameter descriptions in the tool text, from 0.812 to
0.831 (BFCL). Two-fold cross-validation over six templates and the query as typed
(`python -m benchmarks search --cv`) chose this template on one half and a near-tie ("A tool to
help with this request: ...") on the other; the out-of-fold hybrid hit@5 (0.815 MetaTool, 0.893
BFCL) is 0.006-0.008 above that of the query as typed.

For the `semantic` ranker a tool is also cut into parts (`embedding_parts`: its name, each
sentence of its description, each described parameter), embedded one by one on first use and
kept in the same store; the ranker adds the best part's cosine, weighted, to the whole text's.
A tool whose one sentence or parameter fits the request is then found even when the rest of its
text is about something else: hit@5 0.785 -> 0.790 (MetaTool), 0.831 -> 0.837 (BFCL), better on
both halves of each (`python -m benchmarks search --signals`). Hybrid keeps the whole text
only (the parts moved it within the noise).

The same encoder also gives word vectors, used to expand a lexical query with the catalog's own
words that mean nearly the same ("psychologist" -> "therapist", "cheapest" -> "price"): every
distinct word of the catalog (names, descriptions, parameter names and values) and of the query
is embedded on its own, and each query word brings in its closest catalog words above a
similarity threshold, at a reduced weight.

Needs the semantic extra (numpy and the model files); importing this module loads nothing
heavy, the model is read on first use.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from tooldeck.search.catalog import Catalog, CatalogEntry
from tooldeck.search.fields import entry_fields
from tooldeck.search.store import EmbeddingStore, text_key
from tooldeck.search.text import Analyzer, words

if TYPE_CHECKING:
    from tooldeck.search.minilm import MiniLM

Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class ExpansionSettings:
    """How far a query word reaches into the catalog vocabulary."""

    threshold: float = 0.5
    neighbours: int = 10
    weight: float = 0.3
    max_query_words: int = 64
    # Query words neither in the catalog nor met in earlier queries need a pass of the model
    # each (about as costly as the query's own, for a handful); at most this many per query, in
    # the order written: the rest expand to nothing.
    max_new_words: int = 8


QUERY_TEMPLATE = "Which tool should I use for this request: {query}"
RECENT_QUERIES = 512  # query vectors remembered per index
MAX_PARTS = 8  # vectors per tool for the `semantic` ranker's best-part match
# A sentence ends at . ! or ? before a capital, digit, quote or bracket, but not after a
# one-letter abbreviation ("e.g. Paris", "J. Smith").
_SENTENCE_END = re.compile(r"(?<!\b[A-Za-z]\.)(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


def embedding_text(entry: CatalogEntry) -> str:
    """What is embedded for a tool: its name as words, its description and its parameters."""
    fields = entry_fields(entry)
    text = f"{' '.join(words(entry.name))}: {entry.description}"
    if fields.param_text:
        text += f" Parameters: {fields.param_text}"
    elif fields.param_names:
        text += f" Parameters: {fields.param_names.replace('_', ' ')}."
    return text


def embedding_parts(entry: CatalogEntry) -> tuple[str, ...]:
    """The pieces of a tool embedded one by one: its name as words, each sentence of its
    description, and each described top-level parameter ("<name as words>: <description>").
    Distinct, in that order, at most `MAX_PARTS`; never empty (the whole text stands in)."""
    parts = [" ".join(words(entry.name))]
    parts += [s.strip() for s in _SENTENCE_END.split(entry.description) if len(s.strip()) > 3]
    properties = (entry.parameters or {}).get("properties")
    if isinstance(properties, Mapping):
        for key, schema in properties.items():
            text = schema.get("description") if isinstance(schema, Mapping) else None
            if isinstance(text, str) and text.strip():
                parts.append(f"{' '.join(words(str(key)))}: {text.strip()}")
    distinct = [p for p in dict.fromkeys(parts) if p.strip()][:MAX_PARTS]
    return tuple(distinct) or (embedding_text(entry),)


def query_text(query: str, template: str = QUERY_TEMPLATE) -> str:
    """The text embedded for a query: `template` with `{query}` replaced (no other formatting)."""
    return template.replace("{query}", query)


def _vocabulary_words(text: str, analyzer: Analyzer) -> list[str]:
    return [w for w in words(text) if len(w) > 1 and not w.isdigit() and w not in analyzer.stopwords]


def _default_encoder() -> MiniLM:
    from tooldeck.search.minilm import load_minilm

    return load_minilm()


class _VectorCache:
    """Text -> unit vector, filled in batches; shared by the tool and word indexes of one ranker."""

    def __init__(
        self, encoder: Callable[[], MiniLM], *, max_size: int | None = None, padded: bool = False
    ) -> None:
        self._encoder = encoder
        self._padded = padded
        self._vectors: dict[str, Vectors] = {}
        self._lock = threading.Lock()
        self._max_size = max_size

    def get_many(self, texts: Iterable[str], stored: Mapping[str, Vectors] | None = None) -> list[Vectors]:
        wanted = list(texts)
        if stored:
            with self._lock:
                for text in wanted:
                    if text not in self._vectors and (row := stored.get(text_key(text))) is not None:
                        self._vectors[text] = row
        missing = sorted({t for t in wanted if t not in self._vectors})
        if missing:
            encoded = self._encoder().encode(missing, padded=self._padded)
            with self._lock:
                if self._max_size is not None and len(self._vectors) + len(missing) > self._max_size:
                    self._vectors.clear()
                for text, row in zip(missing, encoded, strict=True):
                    self._vectors[text] = row
            found = dict(zip(missing, encoded, strict=True))
            return [found[t] if t in found else self._vectors[t] for t in wanted]
        return [self._vectors[t] for t in wanted]

    def peek(self, text: str) -> Vectors | None:
        return self._vectors.get(text)

    def forget_except(self, keep: set[str]) -> None:
        with self._lock:
            for text in [t for t in self._vectors if t not in keep]:
                del self._vectors[text]


@dataclass(frozen=True, slots=True)
class SemanticSnapshot:
    names: tuple[str, ...]
    tools: Vectors  # one unit row per tool, catalog order
    vocabulary: tuple[str, ...]  # catalog words, for expansion
    word_vectors: Vectors
    catalog: Catalog


@dataclass(frozen=True, slots=True)
class PartVectors:
    """Every tool's `embedding_parts`, one unit row each, grouped by tool in catalog order:
    tool i owns rows `starts[i]` up to the next tool's start."""

    snapshot: SemanticSnapshot
    vectors: Vectors
    starts: npt.NDArray[np.intp]


class SemanticIndex:
    """Tool embeddings and catalog word vectors for one catalog, updated incrementally."""

    def __init__(
        self,
        *,
        encoder: Callable[[], MiniLM] = _default_encoder,
        analyzer: Analyzer | None = None,
        expansion: ExpansionSettings | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        query_template: str = QUERY_TEMPLATE,
        max_query_tokens: int | None = None,
    ) -> None:
        self.analyzer = analyzer or Analyzer()
        self.query_template = query_template
        self.max_query_tokens = max_query_tokens
        self.expansion = expansion or ExpansionSettings()
        self._encoder = encoder
        self._tool_vectors = _VectorCache(encoder)
        self._word_vectors = _VectorCache(encoder)
        # A query's words that the catalog lacks are encoded at search time, all in one padded
        # pass of the model (one pass per word length cost up to twice as much).
        self._query_words = _VectorCache(encoder, max_size=50_000, padded=True)
        self._lock = threading.Lock()
        self._recent_queries: OrderedDict[str, Vectors] = OrderedDict()
        self._queries_lock = threading.Lock()  # not `_lock`, which a build holds for long
        self._catalog = Catalog()
        self._snapshot: SemanticSnapshot | None = None
        self._part_vectors = _VectorCache(encoder)
        self._parts: PartVectors | None = None
        self._parts_lock = threading.Lock()  # not `_lock`: a hybrid query never waits for the parts
        self._store = EmbeddingStore(cache_dir) if cache_dir is not None else None

    def update(self, catalog: Catalog) -> None:
        """Describe `catalog`; the model runs on first use, for tools and words not seen before."""
        with self._lock:
            self._catalog = catalog
            self._snapshot = None

    def snapshot(self) -> SemanticSnapshot:
        with self._lock:
            if self._snapshot is None:
                self._snapshot = self._build(self._catalog)
            return self._snapshot

    def _build(self, catalog: Catalog) -> SemanticSnapshot:
        stored = self._store.load(catalog.content_hash) if self._store else {}
        own_file = self._store is not None and self._store.exists(catalog.content_hash)
        texts = [embedding_text(e) for e in catalog]
        rows = self._tool_vectors.get_many(texts, stored)
        self._tool_vectors.forget_except(set(texts))
        vocab: set[str] = set()
        for entry in catalog:
            for text in entry_fields(entry).as_tuple():
                vocab.update(_vocabulary_words(text, self.analyzer))
        ordered = tuple(sorted(vocab))
        word_rows = self._word_vectors.get_many(ordered, stored)
        self._word_vectors.forget_except(vocab)
        complete = own_file and all(text_key(t) in stored for t in (*texts, *ordered))
        if self._store is not None and not complete:
            pairs = [(text_key(t), v) for t, v in zip(texts, rows, strict=True)]
            pairs += [(text_key(w), v) for w, v in zip(ordered, word_rows, strict=True)]
            self._store.save(catalog.content_hash, pairs)
        dim = rows[0].shape[0] if rows else 0
        return SemanticSnapshot(
            catalog.names,
            np.vstack(rows) if rows else np.zeros((0, dim), np.float32),
            ordered,
            np.vstack(word_rows) if word_rows else np.zeros((0, dim), np.float32),
            catalog,
        )

    def parts(self, snapshot: SemanticSnapshot) -> PartVectors:
        """The part vectors of `snapshot`'s catalog, built (or read from the store) on first use."""
        with self._parts_lock:
            if self._parts is None or self._parts.snapshot is not snapshot:
                self._parts = self._build_parts(snapshot)
            return self._parts

    def _build_parts(self, snapshot: SemanticSnapshot) -> PartVectors:
        catalog = snapshot.catalog
        stored = self._store.load(catalog.content_hash) if self._store else {}
        per_tool = [embedding_parts(e) for e in catalog]
        texts = [t for parts in per_tool for t in parts]
        rows = self._part_vectors.get_many(texts, stored)
        self._part_vectors.forget_except(set(texts))
        if self._store is not None and not all(text_key(t) in stored for t in texts):
            added = {text_key(t): v for t, v in zip(texts, rows, strict=True)}
            # the catalog's own file gains the parts; other catalogs' vectors stay in theirs
            own = stored if self._store.exists(catalog.content_hash) else {}
            self._store.save(catalog.content_hash, {**own, **added})
        counts = np.asarray([len(parts) for parts in per_tool], dtype=np.intp)
        dim = snapshot.tools.shape[1]
        return PartVectors(
            snapshot,
            np.vstack(rows) if rows else np.zeros((0, dim), np.float32),
            np.cumsum(counts) - counts,
        )

    def encode_query(self, text: str, template: str | None = None) -> Vectors:
        """The unit vector of `text` in the query template (this index's, or `template`).

        The last few hundred are remembered: an agent often repeats a search (another turn,
        another session over the same catalog), and the model pass is most of a query's cost.
        """
        full = query_text(text, template or self.query_template)
        with self._queries_lock:
            found = self._recent_queries.get(full)
            if found is not None:
                self._recent_queries.move_to_end(full)
                return found
        vector: Vectors = self._encoder().encode([full], max_tokens=self.max_query_tokens)[0]
        with self._queries_lock:
            self._recent_queries[full] = vector
            while len(self._recent_queries) > RECENT_QUERIES:
                self._recent_queries.popitem(last=False)
        return vector

    def scores(
        self,
        snapshot: SemanticSnapshot,
        query: str,
        *,
        template: str | None = None,
        parts_weight: float = 0.0,
    ) -> npt.NDArray[np.float64]:
        """Cosine similarity of the query with every tool, catalog order; with `parts_weight`,
        plus that times the query's best cosine with one of the tool's parts."""
        if len(snapshot.names) == 0:
            return np.zeros(0)
        vector = self.encode_query(query, template)
        whole = (snapshot.tools @ vector).astype(np.float64)
        if parts_weight <= 0.0:
            return whole
        parts = self.parts(snapshot)
        best = np.maximum.reduceat(parts.vectors @ vector, parts.starts)
        combined: npt.NDArray[np.float64] = whole + parts_weight * best.astype(np.float64)
        return combined

    def _known_vector(self, word: str) -> Vectors | None:
        found = self._word_vectors.peek(word)
        return found if found is not None else self._query_words.peek(word)

    def expand(self, snapshot: SemanticSnapshot, query: str) -> dict[str, float]:
        """Lexical terms of catalog words close to the query's words, with their weights."""
        settings = self.expansion
        qwords = list(dict.fromkeys(_vocabulary_words(query, self.analyzer)))[: settings.max_query_words]
        if not qwords or not snapshot.vocabulary:
            return {}
        own = set(self.analyzer.terms(" ".join(qwords)))
        vectors = {w: v for w in qwords if (v := self._known_vector(w)) is not None}
        new = [w for w in qwords if w not in vectors][: settings.max_new_words]
        vectors.update(zip(new, self._query_words.get_many(new), strict=True))
        rows = [vectors[w] for w in qwords if w in vectors]
        if not rows:
            return {}
        sims = np.vstack(rows) @ snapshot.word_vectors.T
        out: dict[str, float] = {}
        k = min(settings.neighbours, sims.shape[1])
        for row in sims:
            best = np.argpartition(-row, k - 1)[:k]
            for j in best[np.lexsort((best, -row[best]))]:
                similarity = float(row[j])
                if similarity < settings.threshold:
                    break
                for term in self.analyzer.terms(snapshot.vocabulary[j]):
                    if term not in own:
                        out[term] = max(out.get(term, 0.0), settings.weight * similarity)
        return out
