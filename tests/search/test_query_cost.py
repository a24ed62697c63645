"""What a semantic query and an index build cost the model, and that the savings change no result:
padded batches of a query's new words, long queries cut for the model, remembered query vectors,
new words per query bounded, and an on-disk store that a changed catalog reuses."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from tooldeck.search import store as store_module
from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import SearchSettings, ToolSearch
from tooldeck.search.minilm import MiniLM, load_minilm
from tooldeck.search.semantic import ExpansionSettings, SemanticIndex, embedding_text, query_text

from .conftest import TOOLS, assert_same_hits


class CountingEncoder:
    """The real model, recording every text it is asked to encode."""

    def __init__(self) -> None:
        self.model = load_minilm()
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str], **options: Any) -> Any:
        self.texts.extend(texts)
        return self.model.encode(texts, **options)


def counting_index(encoder: CountingEncoder, **options: Any) -> SemanticIndex:
    return SemanticIndex(encoder=lambda: cast(MiniLM, encoder), **options)


def test_padded_batches_equal_texts_encoded_alone() -> None:
    model = load_minilm()
    texts = ["psychologist", "cheapest", "weather forecast for tomorrow", "x", "share price of a company"]
    lengths = {len(model.tokenizer.encode(t)) for t in texts}
    assert len(lengths) > 2  # really of different lengths, so really padded
    padded = model.encode(texts, padded=True)
    alone = np.vstack([model.encode([t])[0] for t in texts])
    assert np.allclose(padded, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(padded, axis=1), 1.0, atol=1e-5)


def test_long_queries_are_cut_for_the_model_only() -> None:
    model: MiniLM = load_minilm()
    head = "find the cheapest flight from Paris to Berlin next Monday"
    one = model.encode([head + " and also " + "some more words " * 40], max_tokens=10)[0]
    two = model.encode([head + " or else " + "entirely different text " * 40], max_tokens=10)[0]
    assert np.array_equal(one, two)  # both cut inside the shared head
    assert len(model.tokenizer.encode("word " * 100, max_length=16)) == 16
    assert len(model.tokenizer.encode("word " * 1000, max_length=10_000)) == 256  # never past the model's
    index = ToolSearch(Catalog.from_json(TOOLS), settings=SearchSettings(max_query_tokens=12))
    long_query = "weather in Paris tomorrow " + "please tell me the translation " * 30
    names = index.search(long_query, ranker="hybrid").names
    assert "translate_text" in names  # the lexical half still reads the whole query
    with pytest.raises(ValueError, match="max_query_tokens"):
        SearchSettings(max_query_tokens=2)


def test_a_repeated_query_runs_the_model_once() -> None:
    encoder = CountingEncoder()
    index = counting_index(encoder)
    index.update(Catalog.from_json(TOOLS))
    snapshot = index.snapshot()
    first = index.scores(snapshot, "rain tomorrow in Berlin")
    asked = len(encoder.texts)
    again = index.scores(snapshot, "rain tomorrow in Berlin")
    assert len(encoder.texts) == asked and np.array_equal(first, again)
    index.scores(snapshot, "rain tomorrow in Madrid")
    assert encoder.texts[-1] == query_text("rain tomorrow in Madrid")


def test_new_query_words_are_bounded_per_query() -> None:
    encoder = CountingEncoder()
    index = counting_index(encoder, expansion=ExpansionSettings(max_new_words=2))
    index.update(Catalog.from_json(TOOLS))
    snapshot = index.snapshot()
    before = len(encoder.texts)
    index.expand(snapshot, "psychologist dermatologist veterinarian orthodontist")
    assert encoder.texts[before:] == ["dermatologist", "psychologist"]  # the first two, one pass
    before = len(encoder.texts)
    index.expand(snapshot, "psychologist orthodontist")
    assert encoder.texts[before:] == ["orthodontist"]  # a word met before costs nothing


def test_a_changed_catalog_embeds_only_what_is_new(tmp_path: Path) -> None:
    ToolSearch(Catalog.from_json(TOOLS[:-1]), cache_dir=tmp_path).search("weather", ranker="hybrid")
    encoder = CountingEncoder()
    index = counting_index(encoder, cache_dir=tmp_path)
    changed = Catalog.from_json(TOOLS)  # one tool more: a new catalog hash, no file of its own
    index.update(changed)
    snapshot = index.snapshot()
    new_tool = changed[TOOLS[-1]["name"]]
    others = {embedding_text(e) for e in changed if e.name != new_tool.name}
    assert embedding_text(new_tool) in encoder.texts  # the new tool's text and its new words only
    assert not others & set(encoder.texts) and len(encoder.texts) < 20
    assert len(list(tmp_path.glob("*.npz"))) == 2  # the changed catalog has its own file now
    fresh = ToolSearch(changed)
    for query in ("share price", "films tonight", "rain tomorrow"):
        assert_same_hits(
            ToolSearch(changed, cache_dir=tmp_path).search(query, ranker="hybrid"),
            fresh.search(query, ranker="hybrid"),
        )
    assert snapshot.names == changed.names


def test_the_store_keeps_the_newest_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "KEEP_FILES", 2)
    store = store_module.EmbeddingStore(tmp_path)
    vector = np.ones(4, dtype=np.float32)
    for number in range(4):
        store.save(f"catalog{number}", {f"key{number}": vector})
    assert len(list(tmp_path.glob("*.npz"))) == 2
    assert store.exists("catalog3") and not store.exists("catalog0")
    assert set(store.load("unseen")) <= {"key2", "key3"} and store.load("unseen")
