"""`python -m benchmarks dialects` runs end to end: the real command, the real LiveMCP file, Hermes 0.19.0
in its own venv. Speed is the benchmark's business; this checks that it measures what it says."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.support.benchrun import bench

from ..dialects.conftest import LIVEMCP


# A fresh machine first builds the Hermes venv (pip install hermes-agent==0.19.0).
@pytest.mark.timeout(900)
def test_bench_dialects_json(livemcp_tools: list[dict[str, Any]]) -> None:
    proc = bench("dialects", "--rounds", "1", "--json", "--schemas", str(LIVEMCP), timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["tools"] == len(livemcp_tools) == 527
    assert [row["dialect"] for row in out["dialects"]] == ["openai", "responses", "anthropic", "gemini"]
    for row in out["dialects"]:
        assert row["tooldeck_us_per_schema"] > 0
        assert row["hermes_us_per_schema"] > 0
        assert abs(row["ratio"] - row["hermes_us_per_schema"] / row["tooldeck_us_per_schema"]) < 0.05
        assert row["warm_render_us"] > 0
    # Literal defaults: tooldeck keeps every one; Hermes's sanitizer rewrites the chart tool's
    # list-of-colours default into schema dicts (its issue #55077).
    assert {k: v for k, v in out["defaults_changed"].items() if k.startswith("tooldeck/")} == {
        "tooldeck/openai": 0,
        "tooldeck/responses": 0,
        "tooldeck/anthropic": 0,
        "tooldeck/gemini": 0,
    }
    assert out["defaults_changed"]["hermes/sanitizer"] >= 1
    assert 0 < out["strict_refused"] < 527
    assert set(out["targets"]) == {"faster_than_hermes", "warm_under_50us"}


def test_bench_dialects_table_and_bad_path(livemcp_tools: list[dict[str, Any]]) -> None:
    proc = bench("dialects", "--rounds", "1", "--no-hermes", "--schemas", str(LIVEMCP), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "dialect" in proc.stdout and "gemini" in proc.stdout and "warm" in proc.stdout
    bad = bench("dialects", "--schemas", "/nonexistent/schemas.json")
    assert bad.returncode == 2
    assert "--schemas" in bad.stderr and "not found" in bad.stderr
