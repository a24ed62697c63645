"""`python -m benchmarks serve`: both servers really answer over stdio; the table shows the overhead."""

from __future__ import annotations

import json

from benchmarks.serve import table
from tests.support.benchrun import bench


def test_both_servers_are_measured_over_stdio() -> None:
    proc = bench("serve", "--rounds", "2", "--calls", "10", "--warmup", "1", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    samples = report["samples"]
    assert sorted(samples) == ["lowlevel", "mcpserver", "tooldeck"]
    assert all(len(values) == 2 and all(us > 0 for us in values) for values in samples.values())
    medians = report["median_us"]
    for peer in ("mcpserver", "lowlevel"):
        assert abs(report["overhead_us"][peer] - (medians["tooldeck"] - medians[peer])) < 0.2


def test_the_table_states_the_overhead() -> None:
    report = {
        "mode": "legacy",
        "rounds": 5,
        "calls": 500,
        "median_us": {"tooldeck": 640.0, "mcpserver": 700.0, "lowlevel": 600.0},
        "overhead_us": {"mcpserver": -60.0, "lowlevel": 40.0},
        "ratio": {"mcpserver": 0.91, "lowlevel": 1.07},
    }
    text = table(report)
    assert "+40.0" in text and "1.07x" in text and "-60.0" in text and "2025 handshake" in text


def test_the_in_memory_variant_measures_the_same_three_servers() -> None:
    proc = bench("serve", "--transport", "memory", "--rounds", "1", "--calls", "5", "--warmup", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["transport"] == "memory"
    assert all(report["median_us"][name] > 0 for name in ("tooldeck", "mcpserver", "lowlevel"))
