"""`tooldeck batch` with the local engine against a loopback model server: runs as real subprocesses;
refusals before any work in the test's process (`tooldeck.cli.main.run`)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from support.batch_kit import (
    batch_args,
    batch_in_process,
    by_prompt,
    check_stuck_worker_results,
    env_for,
    make_project,
    pid_gone,
    read_results,
    run_batch_cli,
    run_with_a_stuck_worker,
    write_items,
)
from tooldeck import parse_config
from tooldeck.agent.models.base import ModelSettings
from tooldeck.batch.dispatch import BatchRunError
from tooldeck.batch.run import BatchOptions, plan_batch, run_batch
from tooldeck.batch.worker import WorkerSpec
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn, tool_rounds


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def test_every_item_gets_one_line_bad_lines_are_skipped_and_resume_runs_nothing_twice(
    project: Path,
) -> None:
    items: list[dict[str, object] | str] = [
        {"id": f"q{i}", "prompt": f"add {i}", "metadata": {"i": i}} for i in range(10)
    ]
    items[3:3] = ["{broken", json.dumps({"id": "nope"})]
    write_items(project / "in.jsonl", items)
    steps = {f"add {i}": [("add", {"a": i, "b": 1})] for i in range(10)}
    # The first four requests are answered only once all four are in: one worker has at most
    # three in flight, so both workers must be serving (however late the second one starts).
    answer, four = by_prompt(steps), threading.Barrier(4, timeout=60)

    def together(recorded: Recorded) -> Turn:
        four.wait()
        return answer(recorded)

    with ScriptedServer([together] * 4, responder=answer) as server:
        done = run_batch_cli(
            server,
            project,
            "in.jsonl",
            "--out",
            "out.jsonl",
            "--workers",
            "2",
            "--concurrency",
            "3",
            "--json",
        )
        assert done.returncode == 0, done.stderr
        assert "in.jsonl:4: not valid JSON" in done.stderr
        assert "in.jsonl:5: item 'nope': 'prompt' must be a non-empty string" in done.stderr
        summary = json.loads(done.stdout)
        assert summary["ran"] == 10 and summary["ok"] == 10 and summary["bad_lines"] == 2
        results = read_results(project / "out.jsonl")
        assert sorted(r["id"] for r in results) == sorted(f"q{i}" for i in range(10))
        for r in results:
            i = r["metadata"]["i"]
            assert r["status"] == "ok" and r["text"] == f"answer: add {i}"
            assert r["tool_calls"] == [{"name": "add", "error": None}] and r["iterations"] == 2
            assert Path(r["workspace"]).is_dir() and str(project / "out.items") in r["workspace"]
        assert len({r["worker"] for r in results}) == 2
        served = len(server.requests)

        again = run_batch_cli(server, project, "in.jsonl", "--out", "out.jsonl")
        assert again.returncode == 2 and "--resume" in again.stderr

        resumed = run_batch_cli(server, project, "in.jsonl", "--out", "out.jsonl", "--resume")
        assert resumed.returncode == 0, resumed.stderr
        assert "0 item(s) run" in resumed.stdout and "10 skipped" in resumed.stdout
        assert len(server.requests) == served and len(read_results(project / "out.jsonl")) == 10


def test_a_worker_killed_mid_item_gets_the_item_retried_once_then_recorded_as_error(project: Path) -> None:
    marker = project / "died-once"
    steps = {
        "once": [("die_once", {"marker": str(marker)})],
        "always": [("die_always", {})],
        "fine": [("add", {"a": 1, "b": 2})],
    }
    write_items(project / "in.jsonl", [{"id": p, "prompt": p} for p in ("once", "always", "fine")])
    with ScriptedServer(responder=by_prompt(steps)) as server:
        done = run_batch_cli(
            server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "2", "--concurrency", "1"
        )
    assert done.returncode == 0, done.stderr
    results = {r["id"]: r for r in read_results(project / "out.jsonl")}
    assert results["once"]["status"] == "ok" and results["once"]["attempts"] == 2
    assert results["once"]["tool_calls"] == [{"name": "die_once", "error": None}]
    assert results["once"]["retried_after"]["cause"] == "worker_died"
    assert "killed by SIGKILL" in results["once"]["retried_after"]["detail"]
    assert marker.exists()
    always = results["always"]
    assert always["status"] == "error" and always["attempts"] == 2
    assert "died (killed by SIGKILL) while running this item" in always["error"]
    assert "tried 2 times" in always["error"]
    assert results["fine"]["status"] == "ok" and results["fine"]["attempts"] == 1
    assert results["fine"]["retried_after"] is None
    assert "retried after a worker died" in done.stdout


def test_an_item_that_shared_a_dying_worker_is_retried_alone_and_succeeds(project: Path) -> None:
    # Two items, so the first worker ready takes both: d1 kills it while o1 is still waiting
    # for the model. Each is then retried alone; only d1 dies again.
    steps = {"poison": [("die_always", {})], "innocent": [("add", {"a": 1, "b": 2})]}
    write_items(project / "in.jsonl", [{"id": "d1", "prompt": "poison"}, {"id": "o1", "prompt": "innocent"}])
    # Each reply takes a second: o1 is surely still waiting for its second when d1's tool call
    # kills the worker, on a loaded machine too.
    with ScriptedServer(responder=by_prompt(steps), latency_s=1.0) as server:
        done = run_batch_cli(
            server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "2", "--concurrency", "2"
        )
    assert done.returncode == 0, done.stderr  # every item got its line
    results = {r["id"]: r for r in read_results(project / "out.jsonl")}
    assert results["o1"]["status"] == "ok" and results["o1"]["attempts"] == 2, results["o1"]
    assert results["o1"]["text"] == "answer: innocent"
    poison = results["d1"]
    assert poison["status"] == "error" and poison["attempts"] == 2
    assert "died (killed by SIGKILL) while running this item" in poison["error"]
    assert poison["worker"] != results["o1"]["worker"]


def test_a_worker_stuck_past_the_timeout_is_ended_and_its_items_end_in_time(project: Path) -> None:
    done = run_with_a_stuck_worker(project)
    assert done.returncode == 0, done.stderr
    check_stuck_worker_results(project / "out.jsonl")


def test_sigkill_of_the_runner_loses_no_finished_item_and_resume_completes_the_rest(project: Path) -> None:
    ids = [f"k{i}" for i in range(40)]
    write_items(project / "in.jsonl", [{"id": i, "prompt": f"p {i}"} for i in ids])
    out = project / "out.jsonl"
    rounds = [("add", {"a": 1, "b": 1})]
    with ScriptedServer(responder=tool_rounds(rounds), latency_s=0.08) as server:
        args = batch_args(
            server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "2", "--concurrency", "2"
        )
        proc = subprocess.Popen(
            args, cwd=project, env=env_for(project), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 6):
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        before = out.read_text(encoding="utf-8")
        finished = read_results(out)  # every line is whole
        assert 6 <= len(finished) < len(ids)
        workers = {int(r["worker"].split("/")[1]) for r in finished}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(pid_gone(p) for p in workers):
            time.sleep(0.1)
        assert all(pid_gone(p) for p in workers), "worker processes outlived the killed runner"

        server.requests.clear()
        resumed = run_batch_cli(server, project, "in.jsonl", "--out", "out.jsonl", "--resume", "--json")
        assert resumed.returncode == 0, resumed.stderr
    after = out.read_text(encoding="utf-8")
    assert after.startswith(before)
    final = read_results(out)
    assert sorted(r["id"] for r in final) == sorted(ids)  # each id exactly once
    assert all(r["status"] == "ok" for r in final)
    rerun = {r.text_of("user")[0] for r in server.requests}
    assert not rerun & {f"p {r['id']}" for r in finished}  # no finished item ran again
    assert json.loads(resumed.stdout)["skipped"] == len(finished)


def test_workers_that_cannot_start_fail_the_run(tmp_path: Path) -> None:
    src = write_items(tmp_path / "in.jsonl", [{"id": 1, "prompt": "x"}])
    plan = plan_batch(BatchOptions(src, tmp_path / "out.jsonl", workers=1))
    config = parse_config({"tools": [{"use": "no_such_module_for_batch:thing"}]})
    spec = WorkerSpec(
        config=config,
        model=ModelSettings(provider="openai", model="m", base_url="http://127.0.0.1:9/v1"),
        workdir=str(tmp_path / "w"),
    )
    with pytest.raises(BatchRunError, match=r"could not start.*no_such_module_for_batch"):
        run_batch(plan, spec)
    assert (tmp_path / "out.jsonl").read_text() == ""


def test_usage_errors_exit_2(project: Path) -> None:
    write_items(project / "in.jsonl", [{"id": 1, "prompt": "x"}])
    with ScriptedServer() as server:
        bad = batch_in_process(server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "0")
        assert bad.returncode == 2 and "--workers must be >= 1" in bad.stderr
        missing = batch_in_process(server, project, "nope.jsonl", "--out", "out.jsonl")
        assert missing.returncode == 2 and "is not a file" in missing.stderr
        platform = batch_in_process(
            server, project, "in.jsonl", "--out", "out.jsonl", "--platform", "nowhere"
        )
        assert platform.returncode == 2 and "nowhere" in platform.stderr
        local = batch_in_process(server, project, "in.jsonl", "--out", "o.jsonl", "--placement-timeout", "5")
        assert local.returncode == 2 and "--placement-timeout applies to --engine ray only" in local.stderr
        zero = batch_in_process(
            server, project, "in.jsonl", "--out", "o.jsonl", "--engine", "ray", "--placement-timeout", "0"
        )
        assert zero.returncode == 2 and "--placement-timeout must be > 0 seconds" in zero.stderr
    assert not server.requests


def test_an_output_that_is_a_link_or_a_foreign_file_is_refused_before_any_work(project: Path) -> None:
    write_items(project / "in.jsonl", [{"id": "s0", "prompt": "x"}])
    (project / "dangle.jsonl").symlink_to(project / "nowhere.jsonl")
    victim = project / "victim.txt"
    victim.write_text('victim\n{"id": "s0", "status": "ok"}\n')
    with ScriptedServer() as server:
        link = batch_in_process(server, project, "in.jsonl", "--out", "dangle.jsonl")
        assert link.returncode == 2, link.stderr
        assert "dangle.jsonl is a symbolic link" in link.stderr and "finished" not in link.stderr
        for resume in ([], ["--resume"]):
            foreign = batch_in_process(server, project, "in.jsonl", "--out", "victim.txt", *resume)
            assert foreign.returncode == 2, foreign.stderr
            assert "is not a tooldeck results file (line 1 is not a result line: 'victim')" in foreign.stderr
            assert "crash" not in foreign.stderr and "already holds" not in foreign.stderr
    assert not server.requests and not (project / "nowhere.jsonl").exists()
    assert victim.read_text() == 'victim\n{"id": "s0", "status": "ok"}\n'


def test_a_run_that_fails_before_any_item_finishes_claims_no_finished_items(project: Path) -> None:
    # The tools load in the runner (so the config passes) but not in the worker processes.
    (project / "driver_only_tools.py").write_text(
        "import sys\n"
        "if sys.argv[0].endswith('pool_worker.py'):\n"
        "    raise ImportError('these tools refuse to load in a worker')\n"
        "from tooldeck import tool\n\n\n"
        "@tool(toolset='math')\n"
        "def mul(a: int, b: int) -> int:\n"
        '    """Multiply."""\n'
        "    return a * b\n"
    )
    config = project / "tooldeck.yaml"
    config.write_text(config.read_text().replace("tools:\n", 'tools:\n  - {use: "driver_only_tools:mul"}\n'))
    write_items(project / "in.jsonl", [{"id": "a", "prompt": "x"}])
    with ScriptedServer() as server:
        done = run_batch_cli(server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "1")
    assert done.returncode == 1, done.stderr
    assert "the batch failed" in done.stderr and "refuse to load in a worker" in done.stderr
    assert "no item finished" in done.stderr and "finished item(s) are in" not in done.stderr


def test_ctrl_c_stops_the_run_at_once_keeps_finished_items_and_ends_the_workers(project: Path) -> None:
    write_items(project / "in.jsonl", [{"id": i, "prompt": f"p {i}"} for i in range(30)])
    out = project / "out.jsonl"
    # The first two conversations are answered at once, every other one stalls for ten minutes:
    # the run can only end under the test's timeouts by abandoning its in-flight items.
    rounds = tool_rounds([("add", {"a": 1, "b": 1})])
    quick: set[str] = set()

    def responder(recorded: Recorded) -> Turn:
        prompt = recorded.text_of("user")[0]
        if prompt in quick or len(quick) < 2:
            quick.add(prompt)
            return rounds(recorded)
        return dataclasses.replace(rounds(recorded), delay_s=600)

    with ScriptedServer(responder=responder) as server:
        args = batch_args(
            server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "2", "--concurrency", "2"
        )
        proc = subprocess.Popen(
            args, cwd=project, env=env_for(project), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)  # in-flight items are abandoned, not waited for
    assert proc.returncode == 130, stderr
    finished = read_results(out)
    assert len(finished) == 2 and all(r["status"] == "ok" for r in finished)
    assert f"{len(finished)} finished item(s) are in out.jsonl (continue with --resume)" in stderr
    workers = {int(r["worker"].split("/")[1]) for r in finished}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(pid_gone(p) for p in workers):
        time.sleep(0.1)
    assert all(pid_gone(p) for p in workers)


def test_max_rps_paces_the_whole_run(project: Path) -> None:
    write_items(project / "in.jsonl", [{"id": i, "prompt": f"p {i}"} for i in range(12)])
    with ScriptedServer(responder=tool_rounds([])) as server:
        done = run_batch_cli(
            server,
            project,
            "in.jsonl",
            "--out",
            "out.jsonl",
            "--workers",
            "1",
            "--concurrency",
            "12",
            "--max-rps",
            "4",
        )
        assert done.returncode == 0, done.stderr
        times = sorted(r.at for r in server.requests)
    # Twelve items ready at once, one model call each: their starts are 0.25 s apart, so the last
    # leaves 2.75 s after the first (less the first call's own set-up time, under a second).
    assert len(times) == 12
    assert times[-1] - times[0] >= 1.6, [round(t - times[0], 3) for t in times]


def test_items_keep_the_file_tools_when_the_configs_own_workspace_does_not_exist(project: Path) -> None:
    # Each item works in its own folder: the config's workspace is never used by a batch, so its
    # absence must not hide the tools that need a workspace.
    config = project / "tooldeck.yaml"
    config.write_text(config.read_text() + "sandbox: {workspace: /nonexistent/tooldeck-workspace}\n")
    write_items(project / "in.jsonl", [{"id": "w", "prompt": "write it"}])
    steps = {"write it": [("write_file", {"path": "note.txt", "content": "hello"})]}
    with ScriptedServer(responder=by_prompt(steps)) as server:
        done = run_batch_cli(server, project, "in.jsonl", "--out", "out.jsonl", "--json")
    assert done.returncode == 0, done.stderr
    (result,) = read_results(project / "out.jsonl")
    assert result["status"] == "ok" and result["tool_calls"] == [{"name": "write_file", "error": None}]
    assert (Path(result["workspace"]) / "note.txt").read_text() == "hello"
