"""`python -m benchmarks batch`: items per second of `tooldeck batch`, by engine and worker count.

The model is tooldeck's scripted server (`python -m tooldeck.testing.scripted_server`), in its
own process on loopback: every reply takes a fixed `--latency`, and every item makes
`--tool-calls` tool calls (write a note, read it back) before it answers, so an item is
`tool_calls + 1` model calls. With `concurrency` items in flight per worker, the ideal rate is

    ideal = workers x concurrency / (model calls per item x latency)

and the overhead per item is what the measured rate leaves over: `workers x concurrency / rate
- model calls x latency` (the agent loop, the SDK, tool execution, the result line, and the
wait for a core when the machine has fewer cores than busy workers). The rate is measured in
steady state: from the end of the first wave of items to the last result (worker start-up is
shown separately as the wall time of the whole run). Scaling is each row's rate against
`workers x` the rate of one worker; Ray is compared with the local engine at the same count.

Engines: `local` (the process pool), `ray` (a private single-node Ray instance) and `cluster`
(the Ray engine joining a two-node cluster simulated on this machine with Ray's own
`ray.cluster_utils.Cluster`: a head and a second node, each with half the workers' CPUs, on
loopback; what a run on a real cluster pays for its driver talking to a separate cluster).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchmarks.paths import BenchSetupError

BenchEngine = Literal["local", "ray", "cluster"]
ENGINES: tuple[BenchEngine, ...] = ("local", "ray", "cluster")

TARGET_SCALING = 0.8
TARGET_RAY_VS_LOCAL = 0.8


@dataclass(frozen=True)
class BatchBenchOptions:
    workers: tuple[int, ...] = (1, 2, 4, 8)
    concurrency: int = 4
    latency_s: float = 0.2
    tool_calls: int = 2
    waves: int = 6
    engines: tuple[BenchEngine, ...] = ("local", "ray", "cluster")
    rounds: int = 1  # each row is the median over the rounds


def start_server(latency_s: float, tool_calls: int) -> tuple[subprocess.Popen[str], str]:
    calls = []
    for i in range(tool_calls):  # write a note, then read it back, and so on
        if i % 2 == 0:
            calls.append(
                {"name": "write_file", "arguments": {"path": f"note{i}.txt", "content": f"note {i}"}}
            )
        else:
            calls.append({"name": "read_file", "arguments": {"path": f"note{i - 1}.txt"}})
    with tempfile.TemporaryDirectory(prefix="tooldeck-bench-server-") as folder:
        script = Path(folder) / "calls.json"
        script.write_text(json.dumps(calls), encoding="utf-8")
        args = [sys.executable, "-m", "tooldeck.testing.scripted_server", "--latency", str(latency_s)]
        args += ["--calls", str(script), "--until-eof"]
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()  # printed once the script is read
    if not base_url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise BenchSetupError(f"the scripted server did not start (said {base_url!r})")
    return proc, base_url


def measure(
    engine: BenchEngine,
    workers: int,
    opts: BatchBenchOptions,
    base_url: str,
    tmp: Path,
    address: str | None = None,
) -> dict[str, Any]:
    """One batch run; its steady-state rate and what it costs per item."""
    from tooldeck import Config
    from tooldeck.agent.models.base import ModelSettings
    from tooldeck.batch.run import BatchOptions, plan_batch, run_batch
    from tooldeck.batch.worker import WorkerSpec

    slots = workers * opts.concurrency
    count = slots * opts.waves
    folder = Path(tempfile.mkdtemp(prefix=f"{engine}-{workers}-", dir=tmp))
    src = folder / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "prompt": f"item {i}"}) + "\n" for i in range(count)))
    options = BatchOptions(
        src,
        folder / "out.jsonl",
        workers=workers,
        concurrency=opts.concurrency,
        engine="local" if engine == "local" else "ray",
        ray_address=address,
    )
    settings = ModelSettings(provider="openai", model="scripted-model", base_url=base_url, api_key="bench")
    spec = WorkerSpec(
        config=Config(), model=settings, workdir=str(folder / "items"), concurrency=opts.concurrency
    )
    stamps: list[float] = []
    started = time.monotonic()
    summary = run_batch(plan_batch(options), spec, on_result=lambda r: stamps.append(time.monotonic()))
    wall = time.monotonic() - started
    stamps.sort()
    steady = (len(stamps) - slots) / (stamps[-1] - stamps[slots - 1]) if len(stamps) > slots else 0.0
    per_item = (opts.tool_calls + 1) * opts.latency_s
    ideal = slots / per_item
    return {
        "engine": engine,
        "workers": workers,
        "concurrency": opts.concurrency,
        "items": count,
        "ok": summary.ok,
        "wall_s": round(wall, 2),
        "items_per_s": round(steady, 2),
        "ideal_per_s": round(ideal, 2),
        "of_ideal": round(steady / ideal, 3) if ideal else 0.0,
        "overhead_ms": round((slots / steady - per_item) * 1000, 1) if steady else None,
    }


def run_bench(opts: BatchBenchOptions) -> dict[str, Any]:
    """Every (engine, workers) row, the engines interleaved at each worker count so that a change
    in the machine's load during the run hits both alike; the median row over `rounds`."""
    proc, base_url = start_server(opts.latency_s, opts.tool_calls)
    samples: dict[tuple[str, int], list[dict[str, Any]]] = {}
    load_before = os.getloadavg()[0]
    single = tuple(e for e in opts.engines if e != "cluster")
    try:
        with tempfile.TemporaryDirectory(prefix="tooldeck-bench-batch-") as tmp:
            if single:
                ray = _start_ray(max(opts.workers)) if "ray" in single else None
                try:
                    _rows(single, opts, base_url, Path(tmp), samples)
                finally:
                    if ray is not None:
                        ray.shutdown()
            if "cluster" in opts.engines:
                # A driver joins one Ray instance at a time: the cluster's rows come after.
                with simulated_cluster(max(opts.workers)) as address:
                    _rows(("cluster",), opts, base_url, Path(tmp), samples, address)
    finally:
        with proc:  # closes its pipes; the server stops when its stdin closes
            pass
    rows = [_median(samples[(e, w)]) for e in opts.engines for w in opts.workers]
    _scaling(rows)
    load = (round(load_before, 2), round(os.getloadavg()[0], 2))
    return {"options": opts.__dict__, "cores": os.cpu_count(), "load": load, "rows": rows}


def _rows(
    engines: tuple[BenchEngine, ...],
    opts: BatchBenchOptions,
    base_url: str,
    tmp: Path,
    samples: dict[tuple[str, int], list[dict[str, Any]]],
    address: str | None = None,
) -> None:
    for _ in range(opts.rounds):
        for workers in opts.workers:
            for engine in engines:
                row = measure(engine, workers, opts, base_url, tmp, address)
                samples.setdefault((engine, workers), []).append(row)


@contextmanager
def simulated_cluster(workers: int) -> Iterator[str]:
    """A two-node Ray cluster on this machine (head and one more node, each with half the CPUs
    the workers ask for, at least one), on loopback; the driver connected to it; its address."""
    folder = tempfile.mkdtemp(prefix="tdbc", dir="/tmp")  # short: Ray's unix socket paths
    (Path(folder) / "ray").mkdir()
    os.environ["RAY_TMPDIR"] = folder  # the cluster writes its address there, not /tmp/ray
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # every node on 127.0.0.1
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        from ray.cluster_utils import Cluster
    except ImportError:
        raise BenchSetupError("the cluster engine needs Ray: pip install 'tooldeck[ray]'") from None
    from tooldeck.batch.ray_engine import connect_ray

    half = max(1, -(-workers // 2))
    node: dict[str, Any] = {
        "object_store_memory": 100 * 1024 * 1024,
        "include_dashboard": False,
        "dashboard_agent_listen_port": None,  # a free port, not Ray's fixed default for a head
    }
    cluster: Any = Cluster(initialize_head=True, head_node_args={"num_cpus": half, **node})
    try:
        cluster.add_node(num_cpus=half, **node)
        ray, _ = connect_ray(str(cluster.address), workers)
        try:
            yield str(cluster.address)
        finally:
            ray.shutdown()
    finally:
        cluster.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


def _median(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The median run by rate (the lower of the middle two for an even count: no flattery)."""
    ordered = sorted(rows, key=lambda r: float(r["items_per_s"]))
    return {**ordered[(len(ordered) - 1) // 2], "rounds": [r["items_per_s"] for r in rows]}


def _start_ray(workers: int) -> Any:
    """One Ray instance for every Ray row, so its start-up is not counted in each."""
    from tooldeck.batch.ray_engine import connect_ray

    ray, _ = connect_ray(None, workers)
    return ray


def _scaling(rows: list[dict[str, Any]]) -> None:
    base = {r["engine"]: r["items_per_s"] for r in rows if r["workers"] == 1}
    local = {r["workers"]: r["items_per_s"] for r in rows if r["engine"] == "local"}
    for r in rows:
        one = base.get(r["engine"])
        r["scaling"] = round(r["items_per_s"] / (one * r["workers"]), 3) if one else None
        if r["engine"] != "local" and local.get(r["workers"]):
            r["vs_local"] = round(r["items_per_s"] / local[r["workers"]], 3)


def table(report: dict[str, Any]) -> str:
    opts = report["options"]
    head = (
        f"tooldeck batch: {opts['latency_s'] * 1000:.0f} ms per model call, {opts['tool_calls']} tool calls "
        f"per item ({opts['tool_calls'] + 1} model calls), concurrency {opts['concurrency']} per worker, "
        f"{report['cores']} cores, load average {report['load'][0]} before and {report['load'][1]} after"
    )
    cols = f"{'engine':<7}{'workers':>8}{'items':>7}{'items/s':>9}{'ideal':>8}{'of ideal':>9}"
    cols += f"{'overhead/item':>15}{'scaling':>9}{'vs local':>9}{'wall s':>8}"
    lines = [head, cols]
    for r in report["rows"]:
        over = f"{r['overhead_ms']:.0f} ms" if r["overhead_ms"] is not None else "-"
        scaling = f"{r['scaling']:.2f}" if r.get("scaling") is not None else "-"
        vs = f"{r['vs_local']:.2f}" if r.get("vs_local") is not None else "-"
        lines.append(
            f"{r['engine']:<7}{r['workers']:>8}{r['items']:>7}{r['items_per_s']:>9.2f}{r['ideal_per_s']:>8.2f}"
            f"{r['of_ideal']:>9.2f}{over:>15}{scaling:>9}{vs:>9}{r['wall_s']:>8.1f}"
        )
    lines.append(
        f"targets: scaling >= {TARGET_SCALING} until the cores bind; Ray >= {TARGET_RAY_VS_LOCAL} x local"
    )
    return "\n".join(lines)


def _engines(text: str) -> tuple[BenchEngine, ...]:
    out: list[BenchEngine] = []
    for name in text.split(","):
        engine = next((e for e in ENGINES if e == name), None)
        if engine is None:
            raise SystemExit(f"unknown engine {name!r}: local, ray or cluster")
        out.append(engine)
    return tuple(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks batch", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4,8", help="worker counts, comma-separated")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model call")
    parser.add_argument("--tool-calls", type=int, default=2)
    parser.add_argument("--waves", type=int, default=6, help="items per slot (workers x concurrency)")
    parser.add_argument("--engines", default="local,ray,cluster", help="local, ray, cluster (2 nodes)")
    parser.add_argument("--rounds", type=int, default=1, help="runs per row; the median is shown")
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    opts = BatchBenchOptions(
        workers=tuple(int(w) for w in args.workers.split(",")),
        concurrency=args.concurrency,
        latency_s=args.latency,
        tool_calls=args.tool_calls,
        waves=args.waves,
        engines=_engines(args.engines),
        rounds=args.rounds,
    )
    try:
        report = run_bench(opts)
    except BenchSetupError as exc:
        print(f"batch benchmark: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.as_json else table(report))
    return 0
