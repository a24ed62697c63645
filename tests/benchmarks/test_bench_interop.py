"""`python -m benchmarks interop`: every adapter and the framework's own tool really answer; the table
shows the ratios."""

from __future__ import annotations

import json

from benchmarks.interop import report_of, table
from tests.support.benchrun import bench


def test_each_framework_is_measured_both_ways_against_its_own_tool() -> None:
    proc = bench("interop", "--rounds", "2", "--calls", "5", "--warmup", "2", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert sorted(report["samples"]) == ["langchain", "openai-agents", "pydantic-ai"]
    for samples in report["samples"].values():
        assert sorted(samples) == ["in", "out", "own"]
        assert all(len(values) == 2 and all(us > 0 for us in values) for values in samples.values())
    for name, medians in report["median_us"].items():
        assert abs(report["overhead_us"][name]["out"] - (medians["out"] - medians["own"])) < 0.2


def test_the_table_states_ratios_and_differences() -> None:
    samples = {"langchain": {"own": [100.0], "out": [150.0], "in": [250.0]}}
    text = table(report_of(samples, rounds=1, calls=10))
    assert "1.50x" in text and "+50.0" in text and "2.50x" in text and "+150.0" in text
