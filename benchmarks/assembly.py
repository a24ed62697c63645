"""`tooldeck bench assembly`: tool assembly on a fixed 300-tool workload, tooldeck vs Hermes 0.19.0.

Each round starts one fresh tooldeck process (`assembly_child.py`) and one run of Hermes's own
script (`<shared>/bench/hermes/hermes_assembly.py`, in the Hermes venv, HOME a scratch folder),
alternating which goes first. Both read CLOCK_MONOTONIC in the parent just before the spawn
and as the child's first statement, and run the same workload (`workload.json`, verified by
its sha256). The table shows the median over the rounds of each figure, the ratio
Hermes / tooldeck (> 1 means tooldeck is faster) and a verdict per target of issue 2:

  * cold (launch -> first assembled list) at least 5x faster than Hermes;
  * warm (repeat assembly + OpenAI list, nothing changed) no slower than Hermes's memo hit;
  * that unchanged-availability repeat under 100 us.

Correctness is checked too: 72 exposed with the expected name hash, 55,376 / 52,557 JSON bytes,
and after flipping chk_03 plus the public invalidation, the next list has the 76 expected names.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import assembly_workload as wl
from benchmarks import paths
from benchmarks.assembly_phases import Counts
from tooldeck.errors import ConfigError, TooldeckError

HERMES_VERSION = "0.19.0"
CHILD = Path(__file__).with_name("assembly_child.py")


class BenchRunError(TooldeckError):
    """A measured process failed or printed something that is not the expected JSON."""


@dataclass(frozen=True)
class BenchOptions:
    shared: Path
    runs: int = 5
    warmup_runs: int = 1
    counts: Counts = field(default_factory=Counts)
    hermes: bool = True
    hermes_py: str | None = None
    builtins: bool = True  # False: skip discovery of tooldeck's built-in tools (diagnostic)


def hermes_python(explicit: str | None = None) -> str:
    """`explicit`, else the Hermes venv from `benchmarks.paths` (built once in the cache)."""
    return explicit or paths.hermes_python()


def scrubbed_env(home: Path) -> dict[str, str]:
    """The environment of the measured process, the same as Hermes's script gives its child."""
    return {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "TZ": "UTC",
        "TERM": "dumb",
    }


def run_tooldeck_once(workload: Path, home: Path, counts: Counts, *, builtins: bool = True) -> dict[str, Any]:
    """One fresh tooldeck process; adds the figures measured from outside (launch, exit)."""
    home.mkdir(parents=True, exist_ok=True)
    argv = [str(workload), str(counts.warm), str(counts.warm_warmup)]
    argv += [str(counts.recompute), str(counts.recompute_warmup), "1" if builtins else "0"]
    launch = time.monotonic_ns()
    proc = subprocess.run(
        [sys.executable, str(CHILD), *argv],
        env=scrubbed_env(home),
        cwd=home,
        capture_output=True,
        timeout=300,
    )
    exited = time.monotonic_ns()
    if proc.returncode != 0:
        raise BenchRunError(f"tooldeck child failed (rc={proc.returncode}): {proc.stderr.decode()[-3000:]}")
    result = _parse(proc.stdout, "tooldeck child")
    cold = result["cold"]
    t0, first = cold.pop("_t0_mono_ns"), cold.pop("_first_list_mono_ns")
    result["cold"] = {
        "interp_start_ms": round((t0 - launch) / 1e6, 3),
        **cold,
        "launch_to_first_list_ms": round((first - launch) / 1e6, 3),
        "launch_to_exit_ms": round((exited - launch) / 1e6, 3),
    }
    result["child_stderr_lines"] = len(proc.stderr.decode(errors="replace").splitlines())
    return result


def run_hermes_once(python: str, script: Path, home: Path, stderr_file: Path) -> dict[str, Any]:
    """One run of Hermes's own benchmark script (its wrapper spawns its measured child)."""
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "BENCH_HOME": str(home)}
    cmd = [python, str(script), "--home", str(home), "--stderr-file", str(stderr_file)]
    proc = subprocess.run(cmd, env=env, cwd=home, capture_output=True, timeout=900)
    if proc.returncode != 0:
        raise BenchRunError(f"Hermes script failed (rc={proc.returncode}): {proc.stderr.decode()[-3000:]}")
    return _parse(proc.stdout, "Hermes script")


def _parse(stdout: bytes, who: str) -> dict[str, Any]:
    import json

    try:
        value = json.loads(stdout.decode())
    except ValueError as exc:
        raise BenchRunError(
            f"{who} printed no JSON ({exc}): {stdout.decode(errors='replace')[:500]}"
        ) from None
    if not isinstance(value, dict):
        raise BenchRunError(f"{who} printed JSON that is not an object")
    return value


def run_bench(opts: BenchOptions, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Warm-up runs (discarded), then `runs` rounds of tooldeck and Hermes in alternation."""
    say = progress or (lambda _msg: None)
    hermes_dir = opts.shared / wl.HERMES_DIR
    workload = hermes_dir / "workload.json"
    wl.read_workload(workload, verify=True)
    python = hermes_python(opts.hermes_py) if opts.hermes else None
    scratch = Path(tempfile.mkdtemp(prefix="tooldeck-bench-assembly-"))
    td_home, h_home = scratch / "tooldeck-home", scratch / "hermes-home"

    def tooldeck() -> dict[str, Any]:
        return run_tooldeck_once(workload, td_home, opts.counts, builtins=opts.builtins)

    def hermes(tag: str) -> dict[str, Any]:
        assert python is not None
        return run_hermes_once(
            python, hermes_dir / "hermes_assembly.py", h_home, scratch / f"hermes-{tag}.stderr"
        )

    for w in range(opts.warmup_runs):
        say(f"warm-up run {w + 1}/{opts.warmup_runs} (discarded)")
        tooldeck()
        if python:
            hermes(f"warmup-{w + 1}")
    td_runs: list[dict[str, Any]] = []
    h_runs: list[dict[str, Any]] = []
    for i in range(opts.runs):
        say(f"round {i + 1}/{opts.runs}")
        order = ("tooldeck", "hermes") if i % 2 == 0 else ("hermes", "tooldeck")
        for who in order:
            if who == "tooldeck":
                td_runs.append(tooldeck())
            elif python:
                h_runs.append(hermes(f"run-{i + 1}"))
    return {
        "bench": "assembly",
        "python": sys.version.split()[0],
        "hermes_python": python,
        "hermes_version": h_runs[0].get("hermes_version") if h_runs else None,
        "cpus": os.cpu_count(),
        "scratch": str(scratch),
        "workload_sha256": wl.WORKLOAD_SHA256,
        "counts": opts.counts.__dict__,
        "tooldeck_builtins": opts.builtins,
        "tooldeck_runs": td_runs,
        "hermes_runs": h_runs,
    }


def main(argv: list[str] | None = None) -> int:
    """`python bench/assembly.py [--runs N] [--json] [--shared DIR] [--no-hermes]`."""
    import argparse

    from benchmarks.assembly_report import report

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=5, help="measured rounds (fresh processes), default 5")
    ap.add_argument("--warmup-runs", type=int, default=1, help="discarded warm-up rounds, default 1")
    ap.add_argument(
        "--shared",
        default=None,
        help="shared folder (default $TOOLDECK_SHARED, else ../shared beside the checkout)",
    )
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--no-hermes", action="store_true", help="tooldeck only (no ratios, no Hermes verdicts)")
    ap.add_argument(
        "--no-builtins", action="store_true", help="diagnostic: skip discovery of tooldeck's built-in tools"
    )
    args = ap.parse_args(argv)
    if args.runs < 1 or args.warmup_runs < 0:
        print("tooldeck: --runs must be >= 1 and --warmup-runs >= 0", file=sys.stderr)
        return 2
    try:
        opts = BenchOptions(
            wl.find_shared(args.shared),
            args.runs,
            args.warmup_runs,
            hermes=not args.no_hermes,
            builtins=not args.no_builtins,
        )
        result = run_bench(opts, progress=lambda m: print(m, file=sys.stderr))
    except ConfigError as exc:
        print(f"tooldeck: config error: {exc}", file=sys.stderr)
        return 2
    except BenchRunError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return 1
    return report(result, as_json=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
