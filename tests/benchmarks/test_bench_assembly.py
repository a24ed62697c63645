"""The assembly benchmark's tooldeck side gives the right answers (timings are not asserted).

Runs the fixed 300-tool workload of `../shared/bench/hermes/workload.json` through tooldeck:
72 tools exposed with the expected name hash and JSON bytes, a public invalidation after
flipping chk_03 gives the fresh 76, targeted invalidation re-runs one check only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from benchmarks.assembly import run_tooldeck_once
from benchmarks.assembly_phases import Counts, run_in_process
from benchmarks.assembly_report import problems, summarise
from tests.support.benchrun import CHECKOUT
from tests.support.shared_data import SHARED, require

from benchmarks import assembly_workload as wl
from tooldeck.errors import ConfigError

WORKLOAD = SHARED / "bench" / "hermes" / "workload.json"
CLI = [sys.executable, "-m", "benchmarks", "assembly"]
SMALL = Counts(warm=30, warm_warmup=3, recompute=3, recompute_warmup=1)


@pytest.fixture
def needs_shared_data() -> None:
    require(WORKLOAD)  # fails loudly without ../shared


needs_shared = pytest.mark.usefixtures("needs_shared_data")


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    require(WORKLOAD)
    return run_in_process(SHARED, SMALL)


@needs_shared
def test_first_assembly_exposes_the_72_expected_tools(result: dict[str, Any]) -> None:
    out = result["output"]
    assert result["workload_sha256"] == wl.WORKLOAD_SHA256
    assert out["exposed"] == 72 and out["exposed_matches_expected"]
    assert out["exposed_names_sha256_16"] == "55a3fe2bdfb4dd63"
    assert (out["json_bytes"], out["json_bytes_compact"]) == (55376, 52557)
    assert out["schemas_identical_to_registered"] == 72
    assert out["order"] == "alphabetical"
    # all 20 checks ran once, concurrently: the first list costs about one slow check, not four
    assert result["cold"]["first_assembly_probe_calls"] == 20
    assert result["cold"]["synthetic_tools_registered"] == 300


@needs_shared
def test_warm_repeats_run_no_check(result: dict[str, Any]) -> None:
    warm = result["warm"]
    for figure in ("memo_hit", "assemble_only", "recompute_memo_cleared_private"):
        assert warm[figure]["probe_calls"] == 0, figure
        assert warm[figure]["n"] > 0
    assert warm["memo_hit"]["exposed"] == 72


@needs_shared
def test_flip_and_public_invalidate_gives_the_fresh_76(result: dict[str, Any]) -> None:
    change = result["availability_change"]
    a = change["A_after_invalidate"]
    assert a["fresh"] and a["exposed"] == 76 and a["new_tools_present"] == 4
    assert a["probe_calls"] == 20  # invalidate() forgets every answer
    assert change["new_tools"] == ["syn_003", "syn_023", "syn_043", "syn_063"]
    assert change["B_memo_hit_after_A"]["probe_calls"] == 0 and change["B_memo_hit_after_A"]["fresh"]
    assert (change["after_flip_output"]["json_bytes"], change["after_flip_output"]["json_bytes_compact"]) == (
        58038,
        55088,
    )
    # invalidating one key re-runs only that check, in both directions
    for step in ("C_flip_back_invalidate_one_key", "D_flip_again_invalidate_one_key"):
        assert change[step]["fresh"] and change[step]["probe_calls"] == 1, step
    assert change["C_flip_back_invalidate_one_key"]["exposed"] == 72


@needs_shared
def test_report_finds_nothing_wrong_and_notices_a_wrong_answer(result: dict[str, Any]) -> None:
    assert problems(result) == []
    broken = json.loads(json.dumps(result))
    broken["availability_change"]["A_after_invalidate"]["fresh"] = False
    assert problems(broken) == ["fresh 76 after flip + invalidate"]
    summary = summarise({"tooldeck_runs": [result], "hermes_runs": []})
    assert {v["target"]: v["ok"] for v in summary["verdicts"]}["correct in every tooldeck run"]


@needs_shared
def test_fresh_process_child_reports_cold_phases(tmp_path: Path) -> None:
    run = run_tooldeck_once(WORKLOAD, tmp_path / "home", SMALL)
    cold = run["cold"]
    assert problems(run) == []
    assert 0 < cold["interp_start_ms"] < cold["launch_to_first_list_ms"] <= cold["launch_to_exit_ms"]
    assert cold["import_tooldeck_ms"] > 0 and cold["first_assembly_probe_calls"] == 20


def test_a_changed_workload_is_refused_with_both_hashes(tmp_path: Path) -> None:
    doc = {"workload_sha256": wl.WORKLOAD_SHA256, "tools": [], "checks": {}, "platform": {"synplat": []}}
    path = tmp_path / "workload.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ConfigError, match=f"expected {wl.WORKLOAD_SHA256}") as err:
        wl.read_workload(path)
    assert wl.fingerprint(doc) in str(err.value) and err.value.path == "--shared"


def test_a_missing_shared_folder_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*CLI, "--shared", str(tmp_path), "--no-hermes"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=CHECKOUT,
    )
    assert proc.returncode == 2
    assert "--shared" in proc.stderr and "workload.json" in proc.stderr


@needs_shared
def test_cli_runs_tooldeck_side_and_prints_json() -> None:
    proc = subprocess.run(
        [*CLI, "--shared", str(SHARED), "--no-hermes", "--runs", "1", "--warmup-runs", "0", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=CHECKOUT,
    )
    assert proc.returncode in (0, 1), proc.stderr  # 1 only if the < 100 us target is missed here
    data = json.loads(proc.stdout)
    assert len(data["tooldeck_runs"]) == 1 and data["hermes_runs"] == []
    verdicts = {v["target"]: v["ok"] for v in data["verdicts"]}
    assert verdicts["correct in every tooldeck run"]
    assert not any(k.startswith("cold >=") for k in verdicts)  # no Hermes, no ratio verdicts
