"""The `semantic` ranker's tool parts: a tool is also scored by its best-matching piece (its
name, one sentence of its description, one parameter's description), for real with the bundled
MiniLM model."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from tooldeck.search.catalog import Catalog, CatalogEntry
from tooldeck.search.engine import SearchSettings, ToolSearch
from tooldeck.search.minilm import MiniLM, load_minilm
from tooldeck.search.semantic import (
    MAX_PARTS,
    QUERY_TEMPLATE,
    SemanticIndex,
    embedding_parts,
    embedding_text,
)
from tooldeck.search.store import text_key

from .conftest import TOOLS

# Tools whose matching text is one piece among unrelated ones: a parameter's description, or
# the last sentence of a description that is otherwise about something else.
BURIED: list[dict[str, Any]] = [
    {
        "name": "crm_sync",
        "description": "Synchronise contacts, deals, pipelines and companies between the CRM and "
        "the data warehouse on a schedule.",
        "parameters": {
            "type": "object",
            "properties": {
                "ticker": {
                    "type": "string",
                    "description": "Convert an amount of money from one currency to another.",
                }
            },
        },
    },
    {
        "name": "workspace_admin",
        "description": "Manage user accounts, billing, invoices, team seats, audit logs, single "
        "sign-on and API keys for the organisation. Also plays a relaxing song on the office speakers.",
    },
]


def test_parts_are_the_name_each_sentence_and_each_described_parameter() -> None:
    entry = CatalogEntry(
        "getCurrentWeather",
        "Current weather for a city, e.g. Paris. Includes wind! Humidity too?",
        {
            "type": "object",
            "properties": {
                "city_name": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["c", "f"]},  # not described: no part
                "days": "not a schema",
            },
        },
    )
    assert embedding_parts(entry) == (
        "get current weather",
        "Current weather for a city, e.g. Paris.",
        "Includes wind!",
        "Humidity too?",
        "city name: City name, e.g. Paris",
    )


def test_parts_are_distinct_and_bounded() -> None:
    sentences = " ".join(f"Sentence number {i} is here." for i in range(20))
    entry = CatalogEntry("tool", f"Same text. Same text. {sentences}")
    parts = embedding_parts(entry)
    assert len(parts) == MAX_PARTS and len(set(parts)) == MAX_PARTS
    assert parts[:3] == ("tool", "Same text.", "Sentence number 0 is here.")
    # a tool with nothing to split still has one part
    assert len(embedding_parts(CatalogEntry("x", ""))) == 1


def test_a_tool_whose_parameter_or_one_sentence_alone_matches_is_found() -> None:
    noise = {"name": "noise_meter", "description": "Measure the noise level in a room with the microphone."}
    catalog = Catalog.from_json([*TOOLS, *BURIED, noise])
    whole_only = ToolSearch(catalog, settings=SearchSettings(semantic_parts_weight=0.0))
    with_parts = ToolSearch(catalog)
    query = "convert 100 dollars to euros"  # a translation tool is closer to the whole texts
    assert with_parts.search(query, ranker="semantic").names[0] == "crm_sync"
    assert whole_only.search(query, ranker="semantic").names[0] == "translate_text"
    found = with_parts.search("put on a relaxing song", ranker="semantic", limit=2).hits
    assert found[0].name == "workspace_admin" and found[0].score > found[1].score + 0.03


def test_semantic_score_is_whole_text_plus_weighted_best_part() -> None:
    catalog = Catalog.from_json(TOOLS + BURIED)
    weight = 0.7
    index = ToolSearch(catalog, settings=SearchSettings(semantic_parts_weight=weight))
    query = "rain tomorrow in Berlin"
    names, scores, _ = index.scores(query, "semantic")
    model = load_minilm()
    q = model.encode([QUERY_TEMPLATE.replace("{query}", query)], max_tokens=64)[0]
    for i, entry in enumerate(catalog):
        whole = model.encode([embedding_text(entry)])[0] @ q
        best = max(model.encode(list(embedding_parts(entry))) @ q)
        assert names[i] == entry.name
        assert scores[i] == pytest.approx(whole + weight * best, abs=1e-4), entry.name


def test_hybrid_does_not_read_the_parts() -> None:
    catalog = Catalog.from_json(TOOLS + BURIED)
    plain = ToolSearch(catalog, settings=SearchSettings(semantic_parts_weight=0.0))
    weighted = ToolSearch(catalog, settings=SearchSettings(semantic_parts_weight=2.0))
    for query in ("convert 100 dollars to euros", "rain in Lyon", "post to slack"):
        a, b = plain.scores(query, "hybrid"), weighted.scores(query, "hybrid")
        assert np.allclose(a[1], b[1]) and (a[2] == b[2]).all()
    assert weighted._semantic._parts is None  # never built


def test_part_vectors_are_kept_in_the_embedding_store(tmp_path: Path) -> None:
    catalog = Catalog.from_json(TOOLS + BURIED)
    first = ToolSearch(catalog, cache_dir=tmp_path)
    first.prepare("semantic")
    (path,) = tmp_path.glob("*.npz")
    with np.load(path) as data:
        keys = set(str(k) for k in data["keys"])
    parts = [p for entry in catalog for p in embedding_parts(entry)]
    assert {text_key(p) for p in parts} <= keys
    assert {text_key(embedding_text(e)) for e in catalog} <= keys  # the whole texts stay
    again = ToolSearch(catalog, cache_dir=tmp_path)
    query = "convert 100 dollars to euros"
    assert np.allclose(again.scores(query, "semantic")[1], first.scores(query, "semantic")[1], atol=1e-5)


def test_parts_follow_catalog_updates() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    assert "crm_sync" not in index.search("convert 100 dollars to euros", ranker="semantic").names
    index.add(Catalog.from_json(BURIED))
    assert index.search("convert 100 dollars to euros", ranker="semantic").names[0] == "crm_sync"
    index.remove(["crm_sync"])
    assert "crm_sync" not in index.search("convert 100 dollars to euros", ranker="semantic", limit=20).names


@pytest.mark.parametrize("weight", [-0.1, 11.0, float("nan")])
def test_a_parts_weight_out_of_range_is_refused(weight: float) -> None:
    with pytest.raises(ValueError, match="semantic_parts_weight"):
        SearchSettings(semantic_parts_weight=weight)


def test_other_queries_do_not_wait_while_the_parts_are_embedded() -> None:
    model = load_minilm()
    catalog = Catalog.from_json(TOOLS + BURIED)
    part_texts = {p for entry in catalog for p in embedding_parts(entry)} - {
        embedding_text(e) for e in catalog
    }
    started, release = threading.Event(), threading.Event()

    class HeldOnParts:
        """The real model, held back while it embeds the parts (until `release`)."""

        def encode(self, texts: Sequence[str], **options: Any) -> Any:
            if part_texts & set(texts):
                started.set()
                assert release.wait(120), "never released"
            return model.encode(texts, **options)

    index = SemanticIndex(encoder=lambda: cast(MiniLM, HeldOnParts()), max_query_tokens=48)
    index.update(catalog)
    snapshot = index.snapshot()
    building = threading.Thread(target=index.parts, args=(snapshot,))
    building.start()
    answers: list[int] = []

    def ask() -> None:  # what hybrid reads: the snapshot and the whole-text scores
        answers.append(len(index.scores(index.snapshot(), "rain in Berlin")))

    try:
        assert started.wait(120), "the parts were never embedded"
        asking = threading.Thread(target=ask)
        asking.start()
        asking.join(120)  # a liveness bound: the parts stay held back all along
        assert answers == [len(catalog)], "a whole-text query waited for the parts"
    finally:
        release.set()
        building.join(120)
    assert index.parts(snapshot).vectors.shape[0] == len(
        [p for entry in catalog for p in embedding_parts(entry)]
    )
