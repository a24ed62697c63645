"""`python -m benchmarks patch` runs end to end on a small file: the real command, the real patch tool
on a real file, Hermes 0.19.0's fuzzy_find_and_replace in its own venv. No timing thresholds here."""

from __future__ import annotations

import json

import pytest
from tests.support.benchrun import bench


# A fresh machine first builds the Hermes venv (pip install hermes-agent==0.19.0).
@pytest.mark.timeout(900)
def test_bench_patch_json_on_a_small_file() -> None:
    proc = bench("patch", "--lines", "200", "--rounds", "1", "--json", timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["lines"] == 200 and out["hermes_error"] is None
    rows = {row["name"]: row for row in out["scenarios"]}
    assert {name: row["strategy"] for name, row in rows.items()} == {
        "whitespace": "whitespace_normalized",
        "indentation": "line_trimmed",
        "typographic": "unicode_normalized",
    }
    for row in rows.values():
        assert row["tooldeck_engine_ms"] > 0 and row["tooldeck_patch_ms"] > 0 and row["hermes_ms"] > 0
        assert row["hermes_strategy"] and row["same_result"] is True  # both tools make the same edit here
    assert out["target_ms"] == 50 and isinstance(out["target_met"], bool)


def test_bench_patch_table_without_hermes() -> None:
    proc = bench("patch", "--lines", "100", "--rounds", "1", "--no-hermes")
    assert proc.returncode == 0, proc.stderr
    assert "typographic" in proc.stdout and "unicode_normalized" in proc.stdout and "target" in proc.stdout
    assert bench("patch", "--rounds", "0").returncode == 2
