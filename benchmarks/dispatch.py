"""`tooldeck bench dispatch`: the cost of one tool call through the whole execution path.

Three contenders, each in its own fresh process and its own python, in alternating order per
round (see `dispatch_children.py` for what each times):

  * tooldeck: `Executor.execute([ToolCall])` - parse, validate, policy, run (sync handlers on a
    daemon worker thread under a deadline, async handlers awaited), shape;
  * Hermes 0.19.0: `json.loads` + `model_tools.handle_function_call` (sync handlers run inline
    on the caller's thread, without a timeout; async ones through its loop bridge); its batch
    through `AIAgent._execute_tool_calls_concurrent` (a thread pool);
  * pydantic-ai: `ToolManager.handle_call` (validation, then sync functions on a thread).

The table shows the median over the rounds, the ratio peer / tooldeck (> 1: tooldeck faster)
and the verdict for each target of issue 3 (async <= 25 us, sync <= 150 us, 8 x 200 ms batch
<= 230 ms wall, and no slower than either peer).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import dispatch_children as children
from tooldeck.errors import TooldeckError

TARGETS = {"async_us": 25.0, "sync_us": 150.0, "batch_ms": 230.0}
LABELS = {
    "sync_us": "sync tool, per call (us)",
    "async_us": "async tool, per call (us)",
    "batch_ms": "8 x 200 ms batch, wall (ms)",
}


class DispatchBenchError(TooldeckError):
    """A measured process failed or printed something that is not the expected JSON."""


@dataclass(frozen=True)
class DispatchOptions:
    rounds: int = 5
    calls: int = 3000
    warmup: int = 300
    peers: bool = True
    hermes_py: str | None = None
    pydantic_ai_py: str | None = None


def pydantic_ai_python(explicit: str | None = None) -> str:
    """`explicit`, else $PYDANTIC_AI_PY, else a pydantic-ai-slim venv built once in the cache."""
    from benchmarks.paths import peer_python

    return explicit or peer_python("pydantic-ai", ["pydantic-ai-slim"], env_var="PYDANTIC_AI_PY")


def run_child(who: str, python: str, script: str, opts: DispatchOptions, home: Path) -> dict[str, Any]:
    env = {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
    }
    if who == "tooldeck":
        env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    args = json.dumps({"n": opts.calls, "warmup": opts.warmup})
    proc = subprocess.run(
        [python, "-c", script, args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise DispatchBenchError(
            f"{who} child failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
        )
    try:
        figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise DispatchBenchError(f"{who} child printed no JSON: {proc.stdout[-500:]!r}") from None
    if figures.get("check") != "3":
        raise DispatchBenchError(f"{who}: the trivial call returned {figures.get('check')!r}, not '3'")
    return figures


def run_bench(opts: DispatchOptions, progress: Any = None) -> dict[str, Any]:
    """Measure every contender `rounds` times; return medians, ratios and verdicts."""
    contenders: list[tuple[str, str, str]] = [("tooldeck", sys.executable, children.TOOLDECK)]
    skipped: dict[str, str] = {}
    if opts.peers:
        from benchmarks.assembly import hermes_python

        try:
            contenders.append(("hermes", hermes_python(opts.hermes_py), children.HERMES))
        except (TooldeckError, OSError, subprocess.CalledProcessError) as exc:
            skipped["hermes"] = str(exc)
        try:
            contenders.append(("pydantic-ai", pydantic_ai_python(opts.pydantic_ai_py), children.PYDANTIC_AI))
        except (TooldeckError, OSError, subprocess.CalledProcessError) as exc:
            skipped["pydantic-ai"] = str(exc)
    samples: dict[str, list[dict[str, Any]]] = {who: [] for who, _, _ in contenders}
    with tempfile.TemporaryDirectory(prefix="tooldeck-bench-dispatch-") as tmp:
        for r in range(opts.rounds):
            order = contenders[r % len(contenders) :] + contenders[: r % len(contenders)]
            for who, python, script in order:
                home = Path(tmp) / f"{who}-{r}"
                home.mkdir()
                samples[who].append(run_child(who, python, script, opts, home))
                if progress is not None:
                    progress(f"round {r + 1}/{opts.rounds}: {who} done")
    return summarise(samples, skipped, opts)


def summarise(
    samples: dict[str, list[dict[str, Any]]], skipped: dict[str, str], opts: DispatchOptions
) -> dict[str, Any]:
    medians: dict[str, dict[str, float | None]] = {}
    for who, runs in samples.items():
        medians[who] = {}
        for key in TARGETS:
            values = [r[key] for r in runs if r.get(key) is not None]
            medians[who][key] = statistics.median(values) if values else None
    rows = []
    ours = medians["tooldeck"]
    for key, target in TARGETS.items():
        row: dict[str, Any] = {"metric": key, "label": LABELS[key], "tooldeck": ours[key], "target": target}
        beats_peers = True
        for peer in ("hermes", "pydantic-ai"):
            theirs = medians.get(peer, {}).get(key)
            mine = ours[key]
            ratio = theirs / mine if theirs is not None and mine else None
            row[peer] = theirs
            row[f"{peer}/tooldeck"] = ratio
            if ratio is not None and ratio < 1:
                beats_peers = False
        value = ours[key]
        row["meets_target"] = value is not None and value <= target
        row["no_slower_than_peers"] = beats_peers
        rows.append(row)
    floors = [r["floor_ms"] for r in samples["tooldeck"] if r.get("floor_ms") is not None]
    isolated = [r["isolated_us"] for r in samples["tooldeck"] if r.get("isolated_us") is not None]
    return {
        "floor_ms": statistics.median(floors) if floors else None,
        "isolated_us": statistics.median(isolated) if isolated else None,
        "rounds": opts.rounds,
        "calls_per_figure": opts.calls,
        "rows": rows,
        "skipped": skipped,
        "samples": samples,
    }


def table(report: dict[str, Any]) -> str:
    def fmt(v: float | None, ratio: bool = False) -> str:
        if v is None:
            return "n/a"
        return f"{v:.2f}x" if ratio else f"{v:.1f}"

    head = ["metric", "tooldeck", "hermes", "pydantic-ai", "hermes/td", "pyd-ai/td", "target", "verdict"]
    lines = [head]
    for row in report["rows"]:
        verdict = "ok" if row["meets_target"] else "MISSED target"
        if not row["no_slower_than_peers"]:
            verdict += "; slower than a peer"
        lines.append(
            [
                row["label"],
                fmt(row["tooldeck"]),
                fmt(row["hermes"]),
                fmt(row["pydantic-ai"]),
                fmt(row["hermes/tooldeck"], True),
                fmt(row["pydantic-ai/tooldeck"], True),
                f"<= {row['target']:g}",
                verdict,
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    out.append(
        f"median of {report['rounds']} rounds, {report['calls_per_figure']} calls per figure; "
        "ratios > 1 mean tooldeck is faster"
    )
    if report.get("floor_ms") is not None:
        out.append(
            "for reference, 8 new plain threads sleeping 200 ms (start + join) took "
            f"{report['floor_ms']:.1f} ms here: batch figures carry a few ms of machine noise"
        )
    if report.get("isolated_us") is not None:
        out.append(
            f"a sync call with isolation='process' (a fork per call, killed at its deadline): "
            f"{report['isolated_us']:.0f} us per call"
        )
    for who, why in report["skipped"].items():
        out.append(f"{who} not measured: {why}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks dispatch [--rounds N] [--calls N] [--warmup N] [--no-peers] [--json]`."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m benchmarks dispatch", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="measured rounds (fresh processes each)")
    ap.add_argument("--calls", type=int, default=3000, help="timed calls per per-call figure")
    ap.add_argument("--warmup", type=int, default=300, help="untimed calls before each figure")
    ap.add_argument("--no-peers", action="store_true", help="tooldeck only")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.calls < 1 or args.warmup < 0:
        ap.error("--rounds and --calls must be >= 1, --warmup >= 0")
    opts = DispatchOptions(rounds=args.rounds, calls=args.calls, warmup=args.warmup, peers=not args.no_peers)

    def progress(message: str) -> None:
        print(f"bench dispatch: {message}", file=sys.stderr, flush=True)

    try:
        report = run_bench(opts, progress=None if args.json else progress)
    except DispatchBenchError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 0
