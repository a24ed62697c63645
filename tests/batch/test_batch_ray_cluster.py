"""`tooldeck batch --engine ray` on a two-node cluster simulated on this machine
(`ray.cluster_utils.Cluster`): a node lost mid-batch, a cluster smaller than asked, one that grows.

One cluster per test module (a head with 1 CPU); each test first sets the nodes it needs. The
cluster's temp folder (its sockets, logs and address file) is this module's own, so clusters of
parallel test workers never meet: Ray picks free ports for all of a test cluster's services.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.batch_kit import (
    batch_args,
    by_prompt,
    check_stuck_worker_results,
    env_for,
    make_project,
    ray_temp_dir,
    read_results,
    run_with_a_stuck_worker,
    write_items,
)
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

# A liveness bound, not a speed check: each test starts Ray nodes and one or two batch runs
# (the node-lost test took 41–68 s on a two-core machine running the whole suite, and its waits
# inside allow 120–180 s each); the suite's default of 120 s cut it short at load 10.
pytestmark = pytest.mark.timeout(480)

LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray resolves this machine to 127.0.0.1
NODE_ARGS: dict[str, Any] = {
    "object_store_memory": 80 * 1024 * 1024,
    "node_ip_address": "127.0.0.1",
    "include_dashboard": False,
    "dashboard_agent_listen_port": None,  # a free port, not Ray's fixed default for a head
}


class SimCluster:
    """A head node with 1 CPU, and worker nodes added and removed by the tests."""

    def __init__(self, temp: Path) -> None:
        from ray.cluster_utils import Cluster

        self.temp = temp
        self.cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, **NODE_ARGS})

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    def add_node(self, cpus: int) -> Any:
        return self.cluster.add_node(num_cpus=cpus, **NODE_ARGS)

    def head_only(self) -> None:
        for node in list(self.cluster.worker_nodes):
            self.cluster.remove_node(node)

    def remove(self, node: Any) -> None:
        self.cluster.remove_node(node)


@pytest.fixture(scope="module")
def cluster() -> Iterator[SimCluster]:
    with ray_temp_dir() as temp, pytest.MonkeyPatch.context() as mp:
        (temp / "ray").mkdir()
        # The cluster writes its address to the Ray temp folder: this module's, not /tmp/ray.
        mp.setenv("RAY_TMPDIR", str(temp))
        mp.setenv("RAY_USAGE_STATS_ENABLED", "0")
        # Every node on the loopback interface (Ray reads this when it is first imported).
        mp.setenv(LOOPBACK_ONLY, "0")
        from ray._private import ray_constants

        mp.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        made = SimCluster(temp)
        try:
            yield made
        finally:
            made.cluster.shutdown()


class BatchProcess:
    """A `tooldeck batch` run in the background, its stderr read line by line as it comes."""

    def __init__(self, server: ScriptedServer, project: Path, cluster: SimCluster, *args: str) -> None:
        command = [*batch_args(server, project, *args), "--engine", "ray", "--ray-address", cluster.address]
        env = env_for(project, RAY_TMPDIR=str(cluster.temp), **{LOOPBACK_ONLY: "0"})
        self.proc = subprocess.Popen(
            command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def wait_for_line(self, needle: str, timeout: float = 120, also: str = "") -> str:
        """The first stderr line holding `needle` (and `also`), waiting for it up to `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if needle in line and also in line:
                    return line
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.1)
        raise AssertionError(f"no stderr line with {needle!r}; stderr: {''.join(self.lines)[-3000:]}")

    def finish(self, timeout: float = 180) -> tuple[int, str, str]:
        assert self.proc.stdout is not None
        stdout = self.proc.stdout.read()  # stderr is the reader thread's alone
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=10)
        self.close()
        return self.proc.returncode, stdout, "".join(self.lines)

    def close(self) -> None:
        """End the run if it still goes (a failed test), and close its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> BatchProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture
def start(cluster: SimCluster) -> Iterator[Callable[..., BatchProcess]]:
    """Start `tooldeck batch` runs on the cluster; any still going when the test ends are killed."""
    runs: list[BatchProcess] = []

    def starter(server: ScriptedServer, project: Path, *args: str) -> BatchProcess:
        runs.append(BatchProcess(server, project, cluster, *args))
        return runs[-1]

    yield starter
    for run in runs:
        run.close()


def label(worker: str) -> str:
    """An actor's label from a result's `worker` ("ray-3/1234" -> "ray-3")."""
    return worker.split("/")[0]


def test_a_node_lost_mid_batch_costs_only_a_retry_of_its_items_on_the_survivors(
    cluster: SimCluster, tmp_path: Path, start: Callable[..., BatchProcess]
) -> None:
    cluster.head_only()
    node = cluster.add_node(2)  # head 1 CPU + node 2 CPUs: the three workers all placed
    project = make_project(tmp_path / "project")
    ids = [f"n{i}" for i in range(16)]
    write_items(project / "in.jsonl", [{"id": i, "prompt": f"add {n}"} for n, i in enumerate(ids)])
    steps = {f"add {n}": [("add", {"a": n, "b": 1})] for n in range(len(ids))}
    out = project / "out.jsonl"
    answer, flowing = by_prompt(steps), threading.Event()

    def gated(recorded: Recorded) -> Turn:
        flowing.wait(timeout=120)
        return answer(recorded)

    # The node's workers hold items when it goes: no reply comes until the run says all six slots
    # are busy (three workers, two items each), however late the node's workers started on a
    # loaded machine; the replies flow once the node is gone.
    flowing.clear()
    with ScriptedServer(responder=gated, latency_s=0.5) as server:
        run = start(server, project, "in.jsonl", "--out", "out.jsonl", "--workers", "3", "--concurrency", "2")
        run.wait_for_line("running 6 ", also="workers 3/3")
        cluster.remove(node)
        flowing.set()
        code, _stdout, stderr = run.finish()
        assert code == 0, stderr[-3000:]
        results = read_results(out)
        assert sorted(r["id"] for r in results) == sorted(ids)  # one line per item, none twice
        assert all(r["status"] == "ok" for r in results), [r for r in results if r["status"] != "ok"]
        retried = [r for r in results if r["attempts"] == 2]
        assert retried, "the lost node's items were not retried"
        lost_workers = {r["retried_after"]["worker"] for r in retried}
        for r in retried:
            assert r["retried_after"]["cause"] == "node_lost", r["retried_after"]
            assert "while running this item" in r["retried_after"]["detail"]
            assert label(r["worker"]) not in lost_workers  # run again on a survivor
        assert all(r["retried_after"] is None for r in results if r["attempts"] == 1)
        # Their replacements cannot be placed on the head's one CPU: the run says so and goes on.
        assert "lost (its node was lost)" in stderr and "running on 1 of 3" in stderr

        # --resume on the cluster as it now is (the head alone), after a run cut short: the
        # first results kept, the rest run again on the one worker that can be placed.
        kept = out.read_text(encoding="utf-8").splitlines(keepends=True)[:6]
        out.write_text("".join(kept), encoding="utf-8")
        flowing.clear()  # nothing ends before the run has said it is short of workers
        again = start(
            server,
            project,
            "in.jsonl",
            "--out",
            "out.jsonl",
            "--workers",
            "3",
            "--concurrency",
            "2",
            "--resume",
        )
        again.wait_for_line("running on 1 of 3 Ray workers: 2 not placed or started yet")
        flowing.set()
        code, stdout, stderr = again.finish()
    assert code == 0, stderr[-3000:]
    assert "6 skipped" in stdout
    assert sorted(r["id"] for r in read_results(out)) == sorted(ids)
    assert "asked for 3 worker(s) of 1 CPU each; the cluster has 1 CPU on 1 live node(s)" in stderr


def test_a_cluster_smaller_than_asked_runs_on_what_fits_and_uses_workers_that_join_later(
    cluster: SimCluster, tmp_path: Path, start: Callable[..., BatchProcess]
) -> None:
    cluster.head_only()
    project = make_project(tmp_path / "project")
    write_items(project / "in.jsonl", [{"id": f"s{i}", "prompt": f"item {i}"} for i in range(10)])
    write_items(project / "other.jsonl", [{"id": "x", "prompt": "other"}])
    grown = threading.Event()
    answer = by_prompt({})

    def held(recorded: Recorded) -> Turn:
        grown.wait(timeout=120)  # nothing finishes before the cluster has grown
        return answer(recorded)

    with ScriptedServer(responder=held) as server:
        run = start(
            server,
            project,
            "in.jsonl",
            "--out",
            "out.jsonl",
            "--workers",
            "3",
            "--concurrency",
            "2",
            "--json",
        )
        run.wait_for_line("running on 1 of 3 Ray workers")
        # Another run while the one CPU is taken: none of its workers can be placed.
        other = start(server, project, "other.jsonl", "--out", "other-out.jsonl", "--placement-timeout", "3")
        code, _stdout, other_err = other.finish()
        assert code == 1, other_err[-3000:]
        assert "no Ray worker could be placed or started within 3 s" in other_err
        assert (
            "asked for 1 worker(s) of 1 CPU each; the cluster has 1 CPU on 1 live node(s), 0 free"
            in other_err
        )
        cluster.add_node(2)  # the autoscaler adds a node: the two missing workers start there
        joined = run.wait_for_line("joined")
        grown.set()
        code, stdout, stderr = run.finish()
    assert code == 0, stderr[-3000:]
    results = read_results(project / "out.jsonl")
    assert sorted(r["id"] for r in results) == sorted(f"s{i}" for i in range(10))
    assert all(r["status"] == "ok" and r["attempts"] == 1 for r in results)
    newcomer = joined.split("Ray worker ")[1].split(" joined")[0]
    assert newcomer in {label(r["worker"]) for r in results}
    summary = json.loads(stdout)
    assert any("running on 1 of 3 Ray workers" in n for n in summary["notices"])
    assert any("joined" in n for n in summary["notices"])
    assert os.path.exists(project / "other-out.jsonl")


def test_an_actor_stuck_past_the_timeout_is_ended_and_its_items_end_in_time(
    cluster: SimCluster, tmp_path: Path
) -> None:
    cluster.head_only()  # the stuck actor's CPU is the only one: its replacement needs it back
    project = make_project(tmp_path / "project")
    engine = ("--engine", "ray", "--ray-address", cluster.address)
    done = run_with_a_stuck_worker(project, *engine, RAY_TMPDIR=str(cluster.temp), **{LOOPBACK_ONLY: "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    check_stuck_worker_results(project / "out.jsonl")
    assert "Ray worker ray-0 lost (it stopped answering) with 1 item(s)" in done.stderr
