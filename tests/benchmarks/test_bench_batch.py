"""`python -m benchmarks batch`: a small real run, and the arithmetic of the table."""

from __future__ import annotations

from benchmarks.batch import BatchBenchOptions, _scaling, run_bench, table


def test_a_small_local_run_measures_real_items() -> None:
    opts = BatchBenchOptions(
        workers=(1,), concurrency=2, latency_s=0.05, tool_calls=2, waves=3, engines=("local",)
    )
    report = run_bench(opts)
    [row] = report["rows"]
    assert row["engine"] == "local" and row["items"] == 6 and row["ok"] == 6
    assert row["ideal_per_s"] == round(2 / 0.15, 2)
    assert 0 < row["items_per_s"] <= row["ideal_per_s"] * 1.05  # no faster than the model allows
    assert row["overhead_ms"] is not None and row["scaling"] == 1.0
    assert "local" in table(report).splitlines()[2]


def test_scaling_and_ray_against_local() -> None:
    rows = [
        {"engine": "local", "workers": 1, "items_per_s": 6.0},
        {"engine": "local", "workers": 2, "items_per_s": 10.8},
        {"engine": "ray", "workers": 1, "items_per_s": 5.4},
        {"engine": "ray", "workers": 2, "items_per_s": 9.0},
    ]
    _scaling(rows)
    assert [r["scaling"] for r in rows] == [1.0, 0.9, 1.0, 0.833]
    assert rows[3]["vs_local"] == round(9.0 / 10.8, 3) and "vs_local" not in rows[0]
