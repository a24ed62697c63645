"""`python -m benchmarks dispatch`: the tooldeck child really runs; the table computes ratios and verdicts."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.dispatch import DispatchOptions, run_bench, summarise, table
from tests.support.benchrun import CHECKOUT

from tooldeck import parse_config
from tooldeck._core.execution.events import CallbackSink, CollectingSink, ExecutionEvent, FanOutSink


def test_the_tooldeck_child_measures_the_real_path() -> None:
    report = run_bench(DispatchOptions(rounds=1, calls=50, warmup=5, peers=False))
    [sample] = report["samples"]["tooldeck"]
    assert sample["check"] == "3"
    assert sample["sync_us"] > 0 and sample["async_us"] > 0
    assert 195 <= sample["batch_ms"] < 1600  # 8 x 200 ms run concurrently, not one after another
    assert [r["metric"] for r in report["rows"]] == ["async_us", "sync_us", "batch_ms"]


def test_ratios_and_verdicts() -> None:
    samples = {
        "tooldeck": [{"sync_us": 40.0, "async_us": 12.0, "batch_ms": 205.0}],
        "hermes": [{"sync_us": 20.0, "async_us": 36.0, "batch_ms": None}],
        "pydantic-ai": [{"sync_us": 100.0, "async_us": 24.0, "batch_ms": 210.0}],
    }
    report = summarise(samples, {}, DispatchOptions(rounds=1))
    rows = {r["metric"]: r for r in report["rows"]}
    assert rows["async_us"]["hermes/tooldeck"] == 3.0 and rows["async_us"]["no_slower_than_peers"]
    assert rows["sync_us"]["hermes/tooldeck"] == 0.5 and not rows["sync_us"]["no_slower_than_peers"]
    assert rows["batch_ms"]["hermes"] is None and rows["batch_ms"]["meets_target"]
    text = table(report)
    assert "slower than a peer" in text and "3.00x" in text and "n/a" in text


def test_cli_json_without_peers() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "dispatch",
            "--no-peers",
            "--rounds",
            "1",
            "--calls",
            "20",
            "--warmup",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=CHECKOUT,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["rounds"] == 1 and len(report["rows"]) == 3


def test_execution_settings_come_from_the_config() -> None:
    cfg = parse_config(
        {
            "execution": {
                "default_timeout_s": 7,
                "max_concurrency": 2,
                "max_result_chars": 99,
                "max_timeout_s": 5,
            },
            "approvals": {"mode": "deny"},
            "sandbox": {"workspace": "work"},
        },
        base_dir="/srv/project",
    )
    e = cfg.execution
    assert (e.default_timeout_s, e.max_concurrency, e.max_result_chars) == (7, 2, 99)
    assert cfg.approvals.mode == "deny" and str(cfg.workspace) == "/srv/project/work"
    assert e.timeout_for(None) == 5 and e.timeout_for(2) == 2 and e.timeout_for(60) == 5


def test_fan_out_sink_survives_a_broken_subscriber() -> None:
    good = CollectingSink()

    def broken(event: ExecutionEvent) -> None:
        raise RuntimeError("subscriber bug")

    FanOutSink(CallbackSink(broken), good).emit(ExecutionEvent("started", "c1", "t"))
    assert good.kinds("c1") == ["started"]
