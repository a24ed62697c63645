"""`search_cli`: the text `tooldeck search` prints for single queries, --json, --catalog, --queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldeck.search.catalog import Catalog
from tooldeck.search.errors import SearchUsageError
from tooldeck.search.search_cli import search_cli

from .conftest import TOOLS


@pytest.fixture
def catalog_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS), encoding="utf-8")
    return path


def test_single_query_json_gives_names_and_scores(catalog_file: Path) -> None:
    out = json.loads(search_cli("weather in paris", catalog_file=catalog_file, as_json=True))
    assert out[0]["name"] == "get_current_weather"
    assert set(out[0]) == {"name", "score"} and out[0]["score"] > 0


def test_names_come_back_verbatim_even_when_tooldeck_would_refuse_them(catalog_file: Path) -> None:
    out = json.loads(search_cli("search files", catalog_file=catalog_file, as_json=True, limit=1))
    assert out == [{"name": "search files", "score": out[0]["score"]}]
    out = json.loads(search_cli("select:math.factorial", catalog_file=catalog_file, as_json=True))
    assert [r["name"] for r in out] == ["math.factorial"]


def test_text_output_lists_hits_unknown_names_and_notes(catalog_file: Path) -> None:
    text = search_cli("select:translate_text,missing_tool", catalog_file=catalog_file)
    assert "translate_text" in text and "not in the catalog: missing_tool" in text
    assert "no tools found" in search_cli("zebra", catalog_file=catalog_file)
    assert "literal" in search_cli("/(/", catalog_file=catalog_file)


def test_queries_file_prints_one_json_line_per_query(catalog_file: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    lines = [
        {"id": "a", "query": "post to slack"},
        {"id": 7, "query": "zebra"},
        {"id": "c", "query": "select:HTTPRequest2JSON"},
    ]
    queries.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    out = [
        json.loads(line)
        for line in search_cli(None, catalog_file=catalog_file, queries_file=queries, limit=3).splitlines()
    ]
    assert [o["id"] for o in out] == ["a", 7, "c"]
    assert out[0]["results"][0] == "sendSlackMessage"
    assert out[1]["results"] == []
    assert out[2]["results"] == ["HTTPRequest2JSON"]


def test_configured_catalog_is_used_without_a_file() -> None:
    out = json.loads(search_cli("factorial", catalog=Catalog.from_json(TOOLS), as_json=True))
    assert out[0]["name"] == "math.factorial"


def test_misuse_is_a_usage_error(catalog_file: Path, tmp_path: Path) -> None:
    with pytest.raises(SearchUsageError, match="either a QUERY"):
        search_cli(None, catalog_file=catalog_file)
    with pytest.raises(SearchUsageError, match="either a QUERY"):
        search_cli("x", catalog_file=catalog_file, queries_file=catalog_file)
    with pytest.raises(SearchUsageError, match="no catalog"):
        search_cli("x")
    with pytest.raises(SearchUsageError, match="--limit"):
        search_cli("x", catalog_file=catalog_file, limit=0)
    with pytest.raises(SearchUsageError, match="--ranker"):
        search_cli("x", catalog_file=catalog_file, ranker="tfidf")
    with pytest.raises(SearchUsageError, match="cannot read"):
        search_cli("x", catalog_file=tmp_path / "nope.json")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "query": "ok"}\n{oops\n', encoding="utf-8")
    with pytest.raises(SearchUsageError, match=r"bad.jsonl:2"):
        search_cli(None, catalog_file=catalog_file, queries_file=bad)
    bad.write_text('{"id": 1}\n', encoding="utf-8")
    with pytest.raises(SearchUsageError, match='string "query"'):
        search_cli(None, catalog_file=catalog_file, queries_file=bad)
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps([{"name": "a"}, {"name": "a"}]), encoding="utf-8")
    with pytest.raises(SearchUsageError, match="duplicate"):
        search_cli("x", catalog_file=dup)


def test_prepare_builds_the_index_ahead_of_the_first_search(catalog_file: Path, tmp_path: Path) -> None:
    from tooldeck.search.semantic import embedding_text
    from tooldeck.search.store import EmbeddingStore, text_key

    cache = tmp_path / "search"
    out = search_cli(None, catalog_file=catalog_file, ranker="hybrid", cache_dir=cache, prepare=True)
    assert out.startswith(f"prepared {len(TOOLS)} tools for the hybrid ranker")
    catalog = Catalog.from_json(TOOLS)
    stored = EmbeddingStore(cache).load(catalog.content_hash)
    assert all(text_key(embedding_text(e)) in stored for e in catalog)  # a later run reads them
    lexical_only = tmp_path / "lexical"
    search_cli(None, catalog_file=catalog_file, ranker="bm25", cache_dir=lexical_only, prepare=True)
    assert not lexical_only.exists()  # bm25 needs no model and keeps nothing
    with pytest.raises(SearchUsageError, match="--prepare"):
        search_cli("weather", catalog_file=catalog_file, prepare=True)
