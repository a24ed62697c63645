"""`python -m benchmarks mcp`: both measurements really run against the real servers, and the table says
whether the targets were met."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks.mcp_client import measure_calls, print_table, ready_and_cpu, ready_time, servers
from tests.support.benchrun import bench


def test_ready_time_and_call_cost_are_measured(tmp_path: Path) -> None:
    every = servers(tmp_path)
    assert set(every) == {"time", "git", "everything", "filesystem"}
    assert ready_time(tmp_path, {"everything": every["everything"]}) > 0
    elapsed, cpu = ready_and_cpu(tmp_path, {"time": every["time"]})
    assert elapsed > 0 and cpu > 0.05  # a Python server's start-up takes CPU (its imports)
    calls = measure_calls(tmp_path, rounds=1, calls=20, warmup=2)
    assert set(calls) == {"foreign_loop", "deck_loop"}  # from another loop, and through Deck.run
    for measured in calls.values():
        assert measured["bare_sdk_us"] > 0 and measured["tooldeck_us"] > 0
        assert measured["ratio"] == pytest.approx(measured["tooldeck_us"] / measured["bare_sdk_us"])


def test_table_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    report = {
        "ready": {
            "single_s": {"a": 1.0, "b": 2.0},
            "slowest_single_s": 2.0,
            "concurrent_s": 2.6,
            "sequential_s": 3.0,
            "ratio": 1.3,
        },
        "calls": {
            "foreign_loop": {"bare_sdk_us": 1000.0, "tooldeck_us": 1500.0, "ratio": 1.5},
            "deck_loop": {"bare_sdk_us": 1000.0, "tooldeck_us": 1050.0, "ratio": 1.05},
        },
    }
    print_table(report)
    out = capsys.readouterr().out
    assert "<= 1.2: MISSED" in out and "<= 1.1: met" in out
    lines = out.splitlines()
    foreign = next(i for i, line in enumerate(lines) if "from another loop: tooldeck" in line)
    on_deck = next(i for i, line in enumerate(lines) if "on the deck's loop: tooldeck" in line)
    assert "<= 1.1: MISSED" in lines[foreign + 1] and "<= 1.1: met" in lines[on_deck + 1]


def test_cli_json() -> None:
    proc = bench("mcp", "--rounds", "1", "--calls", "20", "--warmup", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # Both were measured; which is faster is the benchmark's finding, not something a loaded
    # two-core machine can promise in one round.
    assert report["ready"]["concurrent_s"] > 0 and report["ready"]["sequential_s"] > 0
    ready = report["ready"]
    assert set(ready["single_s"]) == {"time", "git", "everything", "filesystem"}
    # Each server's start-up CPU is measured, and the floor is never below the slowest alone.
    assert set(ready["start_cpu_s"]) == set(ready["single_s"]) and all(
        v > 0 for v in ready["start_cpu_s"].values()
    )
    assert ready["cpu_floor_s"] >= ready["slowest_single_s"] and ready["cores"] >= 1
    assert ready["ratio_to_floor"] == pytest.approx(ready["concurrent_s"] / ready["cpu_floor_s"])
    assert all(report["calls"][where]["ratio"] > 0 for where in ("foreign_loop", "deck_loop"))
