"""`python -m benchmarks serve`: both servers really answer over stdio; the table shows the overhead."""

from __future__ import annotations

import json

from benchmarks.serve import table
from tests.support.benchrun import bench


def test_both_servers_are_measured_over_stdio() -> None:
    proc = bench("serve", "--rounds", "2", "--calls", "10", "--warmup", "1", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert len(report["samples"]["tooldeck"]) == 2 and len(report["samples"]["bare"]) == 2
    assert all(us > 0 for us in report["samples"]["tooldeck"] + report["samples"]["bare"])
    assert report["overhead_us"] == round(report["tooldeck_us"] - report["bare_us"], 1)


def test_the_table_states_the_overhead() -> None:
    report = {
        "mode": "legacy",
        "rounds": 5,
        "calls": 500,
        "tooldeck_us": 640.0,
        "bare_us": 600.0,
        "overhead_us": 40.0,
        "ratio": 1.07,
    }
    text = table(report)
    assert "+40.0 us per call" in text and "1.07x" in text and "2025 handshake" in text
