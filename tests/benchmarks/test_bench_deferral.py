"""`python -m benchmarks deferral` runs end to end on the real LiveMCP schemas and the example config,
and its figures hang together (deferring saves tokens; shorter listings cost less).

The search cost is measured with `--ranker bm25`: the default `auto` embeds the 527 tools on the
first call, tens of seconds of CPU that measure the model, not the call path; the search
benchmark and tests/search cover the model's rankers."""

from __future__ import annotations

import json
from typing import Any

from tests.support.benchrun import bench

from ..dialects.conftest import LIVEMCP


def test_bench_deferral_json(livemcp_tools: list[dict[str, Any]]) -> None:
    proc = bench("deferral", "--json", "--schemas", str(LIVEMCP), "--ranker", "bm25", timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["livemcp_tools"] == len(livemcp_tools) == 527
    rows = {(r["case"], r["dialect"]): r for r in out["savings"]}
    assert set(rows) == {
        (case, dialect)
        for case in ("livemcp + built-ins", "examples/tooldeck.yaml")
        for dialect in ("openai", "anthropic")
    }
    for dialect in ("openai", "anthropic"):
        live = rows[("livemcp + built-ins", dialect)]
        assert (
            live["all_exposed"]
            > live["deferred_summaries"]
            > live["deferred_names"]
            > live["deferred_none"]
            > 0
        )
        assert live["saved_summaries_pct"] > 50
        example = rows[("examples/tooldeck.yaml", dialect)]
        assert example["deferred_tools"] > 0 and example["all_exposed"] > example["deferred_summaries"]
    search = out["tool_search_call"]
    assert search["ranker"] == "bm25"
    assert search["catalog"] == 527 and search["first_ok"] is True
    assert 0 < search["p50_ms"] <= search["p99_ms"] and search["result_tokens_mean"] > 0
    assert 0 < search["tools_per_result_mean"] <= 5


def test_bench_deferral_table_and_bad_path(livemcp_tools: list[dict[str, Any]]) -> None:
    proc = bench("deferral", "--schemas", str(LIVEMCP), "--ranker", "bm25", timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "livemcp + built-ins" in proc.stdout and "One tool_search call on 527" in proc.stdout
    assert "ranker bm25" in proc.stdout
    bad = bench("deferral", "--schemas", "/nonexistent/schemas.json")
    assert bad.returncode == 2 and "not found" in bad.stderr
    unknown = bench("deferral", "--ranker", "tfidf")
    assert unknown.returncode == 2 and "tfidf" in unknown.stderr
