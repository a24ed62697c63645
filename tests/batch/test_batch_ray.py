"""`tooldeck batch --engine ray` on a Ray instance of its own, started and stopped by the run."""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.batch_kit import (
    by_prompt,
    make_project,
    ray_temp_dir,
    read_results,
    run_batch_cli,
    write_items,
)
from tooldeck.testing.scripted_server import ScriptedServer


def processes_with(marker: str) -> list[int]:
    """Pids of live processes whose environment holds `marker` (Ray renames its workers' command
    lines, but every process it starts inherits the environment)."""
    found = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if needle in environ and "\nState:\tZ" not in status:
            found.append(int(entry))
    return found


@pytest.fixture
def ray_tmp() -> Iterator[Path]:
    with ray_temp_dir() as folder:
        yield folder


def test_ray_engine_runs_the_same_work_and_leaves_no_ray_process(tmp_path: Path, ray_tmp: Path) -> None:
    project = make_project(tmp_path / "project")
    marker = project / "died-once"
    steps = {f"add {i}": [("add", {"a": i, "b": i})] for i in range(6)}
    steps["crash"] = [("die_once", {"marker": str(marker)})]
    # The crash comes first: the actor it kills holds a second item of the first wave.
    items = [{"id": "crash", "prompt": "crash"}] + [{"id": i, "prompt": f"add {i}"} for i in range(6)]
    write_items(project / "in.jsonl", items)
    run_id = f"tooldeck-ray-test-{uuid.uuid4().hex}"
    # Replies slow enough that the neighbour is still in flight when the crash kills its actor.
    with ScriptedServer(responder=by_prompt(steps), latency_s=1.0) as server:
        done = run_batch_cli(
            server,
            project,
            "in.jsonl",
            "--out",
            "out.jsonl",
            "--engine",
            "ray",
            "--workers",
            "2",
            "--concurrency",
            "2",
            timeout=300,
            RAY_TMPDIR=str(ray_tmp),
            TOOLDECK_TEST_RUN=run_id,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    results = {r["id"]: r for r in read_results(project / "out.jsonl")}
    assert set(results) == {*range(6), "crash"}
    for i in range(6):
        assert results[i]["status"] == "ok" and results[i]["text"] == f"answer: add {i}"
        assert results[i]["tool_calls"] == [{"name": "add", "error": None}]
        assert results[i]["worker"].startswith("ray-")
    crash = results["crash"]
    assert crash["status"] == "ok" and crash["attempts"] == 2 and marker.exists()
    assert sum(r["attempts"] == 2 for r in results.values()) == 2  # the item it took down with it
    logs = [p for p in (ray_tmp / "ray").glob("session_*/logs/*") if p.is_file()]
    assert logs, "Ray did not use the test's temp folder"
    addresses = {
        a for p in logs for a in re.findall(r"\b(?:\d{1,3}\.){3}\d{1,3}\b", p.read_text(errors="replace"))
    }
    assert "127.0.0.1" in addresses and all(a.startswith("127.") for a in addresses), addresses
    deadline = time.monotonic() + 60
    while processes_with(run_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert processes_with(run_id) == [], "Ray processes outlived the batch run"
