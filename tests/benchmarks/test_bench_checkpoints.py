"""`python -m benchmarks checkpoints` runs end to end on small workspaces (no timing thresholds)."""

from __future__ import annotations

import json

from tests.support.benchrun import bench


def test_bench_checkpoints_json_and_table() -> None:
    proc = bench("checkpoints", "--files", "50", "--rounds", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(out["tools"]) == ["terminal", "write_file"]
    for row in out["tools"].values():
        assert row["small"]["files"] == 11 and row["large"]["files"] == 51
        for label in ("small", "large"):
            assert row[label]["off_p50_ms"] > 0 and row[label]["on_p50_ms"] > 0
    assert isinstance(out["goal_met"], bool) and out["goal_s"] == 0.5
    table = bench("checkpoints", "--files", "20", "--rounds", "1")
    assert table.returncode == 0, table.stderr
    assert "overhead" in table.stdout and "goal" in table.stdout
    assert bench("checkpoints", "--rounds", "0").returncode == 2
