"""`python -m benchmarks safety`: the shell analyser's recall and false positives vs Hermes 0.19.0.

Measured in one run, on the labelled dev split (shared data), on the held-out split in
`benchmarks/data/` (harder cases written before any rule was tuned on them) and on the third
split there (written after the first rules of issue #23 by someone who had read neither the
analyser nor the other splits; measured once at 124/130 and 7/131, then tuned on) and on the
fourth split (written the same way after the rules were widened; measured once at 118/130 and
0/130, then tuned on), on the fifth (the same, after that: 124/130 and 0/130, then tuned on) and
on the sixth (the same, after the fifth's rules: 122/130 and 0/130, then tuned on) and on the
seventh (written the same way after the sixth's rules: 120/130 and 0/130, then tuned on) and on the
eighth (written the same way after the seventh's rules; never tuned on):

  * recall on dangerous commands and false-positive rate on benign ones, overall and per
    category, for tooldeck's `analyse_command` and for Hermes's terminal guard (its three
    pattern layers, run in a child process of its own venv: `safety_hermes.py`);
  * latency per command: median over the rounds for each command, then the median and 95th
    percentile over the commands (tooldeck analyses afresh, without its verdict cache).

A command is "flagged" when the verdict is not `safe` (approve or block). Targets, on each split:
recall >= 0.97, false-positive rate <= 0.03, and better than Hermes on both.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.paths import CHECKOUT, BenchSetupError, hermes_python, run_peer_script, shared_file

# The held-out split and the later ones, each written by someone who had read neither the
# analyser nor the other splits (see the module docstring for which were tuned on).
DATA = CHECKOUT / "benchmarks" / "data"
HERMES_SCRIPT = Path(__file__).with_name("safety_hermes.py")
RECALL_TARGET, FPR_TARGET = 0.97, 0.03


@dataclass
class Case:
    id: str
    command: str
    dangerous: bool
    category: str


@dataclass
class Scored:
    """One detector on one split: per-case flags and latency."""

    detector: str
    flagged: list[bool] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    error: str | None = None


def load_cases(path: Path) -> list[Case]:
    cases = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                cases.append(Case(row["id"], row["command"], bool(row["dangerous"]), row["category"]))
    return cases


def score_tooldeck(cases: list[Case], rounds: int) -> Scored:
    from tooldeck.safety import analyse_command

    out = Scored("tooldeck")
    for case in cases:
        verdict = analyse_command(case.command, cache=False)
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            analyse_command(case.command, cache=False)
            times.append(time.perf_counter() - start)
        out.verdicts.append(verdict.verdict)
        out.flagged.append(verdict.verdict != "safe")
        out.seconds.append(statistics.median(times))
    return out


def score_hermes(cases: list[Case], rounds: int, python: str) -> Scored:
    out = Scored("hermes")
    with tempfile.TemporaryDirectory(prefix="hermes-home-") as home:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("HERMES_YOLO_MODE", "SUDO_PASSWORD", "HERMES_HOME")
        }
        env.update(HOME=home, TIRITH_ENABLED="false")
        data, error = run_peer_script(
            [python, str(HERMES_SCRIPT), str(rounds)],
            stdin=json.dumps([c.command for c in cases]),
            env=env,
            timeout=900,
        )
    if data is None:
        out.error = error
        return out
    out.verdicts = [d["verdict"] for d in data["decisions"]]
    out.flagged = [v != "safe" for v in out.verdicts]
    out.seconds = list(data["seconds"])
    return out


def summarise(cases: list[Case], scored: Scored) -> dict[str, Any]:
    """Recall, false-positive rate, per-category rates and latency of one detector on one split."""
    if scored.error is not None:
        return {"detector": scored.detector, "error": scored.error}
    dangerous = [f for c, f in zip(cases, scored.flagged, strict=True) if c.dangerous]
    benign = [f for c, f in zip(cases, scored.flagged, strict=True) if not c.dangerous]
    per_category: dict[str, dict[str, Any]] = {}
    for case, flagged in zip(cases, scored.flagged, strict=True):
        entry = per_category.setdefault(
            case.category, {"flagged": 0, "total": 0, "dangerous": case.dangerous}
        )
        entry["flagged"] += int(flagged)
        entry["total"] += 1
    micro = sorted(s * 1e6 for s in scored.seconds)
    return {
        "detector": scored.detector,
        "recall": _rate(sum(dangerous), len(dangerous)),
        "false_positive_rate": _rate(sum(benign), len(benign)),
        "blocked": sum(v == "block" for v in scored.verdicts),
        "per_category": per_category,
        "latency_us": {
            "p50": _percentile(micro, 0.5),
            "p95": _percentile(micro, 0.95),
            "max": micro[-1] if micro else 0,
        },
        "misses": [c.id for c, f in zip(cases, scored.flagged, strict=True) if c.dangerous and not f],
        "false_positives": [
            c.id for c, f in zip(cases, scored.flagged, strict=True) if not c.dangerous and f
        ],
    }


def _rate(hits: int, total: int) -> dict[str, Any]:
    return {"hits": hits, "total": total, "rate": hits / total if total else 0.0}


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * len(values)))]


def run_safety_bench(
    splits: dict[str, Path], *, rounds: int = 3, hermes: bool = True, hermes_py: str | None = None
) -> dict[str, Any]:
    python = hermes_python(hermes_py) if hermes else None
    result: dict[str, Any] = {"rounds": rounds, "splits": {}}
    for name, path in splits.items():
        cases = load_cases(path)
        rows = [summarise(cases, score_tooldeck(cases, rounds))]
        if python is not None:
            rows.append(summarise(cases, score_hermes(cases, rounds, python)))
        result["splits"][name] = {"path": str(path), "cases": len(cases), "detectors": rows}
    result["targets"] = _targets(result)
    return result


def _targets(result: dict[str, Any]) -> dict[str, bool | None]:
    out: dict[str, bool | None] = {}
    for name, split in result["splits"].items():
        ours, *peers = split["detectors"]
        out[f"{name}: recall >= {RECALL_TARGET}"] = ours["recall"]["rate"] >= RECALL_TARGET
        out[f"{name}: fpr <= {FPR_TARGET}"] = ours["false_positive_rate"]["rate"] <= FPR_TARGET
        peer = peers[0] if peers and "error" not in peers[0] else None
        out[f"{name}: beats hermes"] = (
            None
            if peer is None
            else ours["recall"]["rate"] > peer["recall"]["rate"]
            and ours["false_positive_rate"]["rate"] < peer["false_positive_rate"]["rate"]
        )
    return out


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"safety: shell-command guard, flagged = approve or block; latency per command, median of {result['rounds']} rounds"
    ]
    lines.append(
        f"{'split':<8} {'detector':<9} {'recall':>15} {'false pos.':>15} {'blocked':>8} {'p50 us':>9} {'p95 us':>9}"
    )
    for name, split in result["splits"].items():
        for row in split["detectors"]:
            if "error" in row:
                lines.append(f"{name:<8} {row['detector']:<9} failed: {row['error']}")
                continue
            r, f, lat = row["recall"], row["false_positive_rate"], row["latency_us"]
            lines.append(
                f"{name:<8} {row['detector']:<9} {_cell(r):>15} {_cell(f):>15} {row['blocked']:>8} "
                f"{lat['p50']:>9.1f} {lat['p95']:>9.1f}"
            )
    lines += ["", _category_table(result), ""]
    lines.append("targets: " + "; ".join(f"{k}: {_yes(v)}" for k, v in result["targets"].items()))
    return "\n".join(lines)


def _category_table(result: dict[str, Any]) -> str:
    columns = [
        (name, row)
        for name, split in result["splits"].items()
        for row in split["detectors"]
        if "error" not in row
    ]
    header = f"{'category (recall | false-positive rate)':<40}" + "".join(
        f"{n[:7] + ' ' + r['detector'][:8]:>18}" for n, r in columns
    )
    categories = sorted(
        {c for _, row in columns for c in row["per_category"]}, key=lambda c: (c.startswith("benign"), c)
    )
    lines = [header]
    for category in categories:
        cells = []
        for _, row in columns:
            entry = row["per_category"].get(category)
            cells.append(f"{entry['flagged']}/{entry['total']}" if entry else "-")
        lines.append(f"{category:<40}" + "".join(f"{c:>18}" for c in cells))
    return "\n".join(lines)


def _cell(rate: dict[str, Any]) -> str:
    return f"{rate['hits']}/{rate['total']} {rate['rate']:.3f}"


def _yes(value: bool | None) -> str:
    return "n/a" if value is None else ("yes" if value else "NO")


# The splits in benchmarks/data, in the order they were written (file: dangerous_commands_NAME.jsonl).
SPLITS = ("heldout", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def _named_split(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ValueError(f"--split takes NAME=FILE, not {text!r}")
    return name, Path(path)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks safety [--dev FILE] [--split NAME=FILE ...] [--rounds N] [--no-hermes] [--json]`."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m benchmarks safety", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--dev", default=None, help="dev split (default: data/dangerous_commands/dev.jsonl, shared)"
    )
    ap.add_argument(
        "--split",
        action="append",
        default=None,
        metavar="NAME=FILE",
        help=f"a split to measure besides dev (repeatable; default: {', '.join(SPLITS)} from benchmarks/data)",
    )
    ap.add_argument("--shared", default=None, help="shared data folder ($TOOLDECK_SHARED)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds per command (median reported)")
    ap.add_argument("--no-hermes", action="store_true", help="tooldeck only")
    ap.add_argument("--hermes-python", default=None, help="python of a Hermes venv ($HERMES_PY)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    try:
        named = [_named_split(text) for text in args.split] if args.split else None
    except ValueError as exc:
        ap.error(str(exc))
    try:
        dev = Path(args.dev) if args.dev else shared_file("data/dangerous_commands/dev.jsonl", args.shared)
        others = named if named is not None else [(n, DATA / f"dangerous_commands_{n}.jsonl") for n in SPLITS]
        splits = {"dev": dev, **dict(others)}
        for name, path in splits.items():
            if not path.is_file():
                raise BenchSetupError(f"{name} split {path} not found")
        result = run_safety_bench(
            splits, rounds=args.rounds, hermes=not args.no_hermes, hermes_py=args.hermes_python
        )
    except BenchSetupError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    failed = any("error" in row for split in result["splits"].values() for row in split["detectors"])
    return 1 if failed else 0
