"""`python -m benchmarks checkpoints`: what checkpointing adds to a call that changes a file.

Two calls through the deck (a one-shot session each, as `deck.call` makes it), each rewriting
one 4 KiB file with new content every round:

  * `write_file` - off: `checkpoints.enabled: false`; on: the default (the file's bytes kept
    before it is replaced);
  * `terminal` (`printf ... > target.txt`, in bubblewrap) - off: `effects.enabled: false` and no
    checkpoints (the command writes the workspace); on: the default (the command runs against a
    copy-on-write view, its effects are read, judged, landed and checkpointed);

each in a small workspace (10 files) and a large one (`--files`, default 20,000 files in 200
folders). Reported: the p50 of each, the overhead (on minus off), and how much more the large
workspace costs than the small one with everything on: the goal is that a one-file change costs
within 0.5 s of the same call in a small workspace (it should cost about the same: a checkpoint
reads only the file it replaces, and the view's upper layer holds only what the command wrote).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_S = 0.5


def make_workspace(root: Path, files: int) -> Path:
    ws = root / "ws"
    folders = max(1, files // 100)
    for i in range(files):
        folder = ws / f"d{i % folders:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:05d}.txt").write_text(f"file {i}\n" * 8)
    (ws / "target.txt").write_text("x" * 4096)
    return ws


def call_args(tool: str, content: str) -> dict[str, Any]:
    if tool == "write_file":
        return {"path": "target.txt", "content": content}
    return {"command": f"printf '%s' '{content}' > target.txt"}


def p50_ms(root: Path, tool: str, *, enabled: bool, rounds: int) -> float:
    from tooldeck import Deck, parse_config

    home = root / f"home-{tool}-{enabled}"
    config = parse_config(
        {
            "sandbox": {"workspace": "ws", "kind": "bwrap"},
            "home": str(home),
            "platform_toolsets": {"cli": ["file", "terminal"]},
            "checkpoints": {"enabled": enabled},
            "effects": {"enabled": enabled},
        },
        base_dir=str(root),
    )
    deck = Deck(config)
    already = len(deck.checkpoints())
    samples = []
    for i in range(rounds + 2):  # two warm-up calls
        content = f"round {i}\n" + "y" * 4000
        start = time.perf_counter()
        result = deck.call_sync(tool, call_args(tool, content))
        elapsed = time.perf_counter() - start
        if not result.ok:
            raise RuntimeError(f"{tool} failed: {result.content}")
        if i >= 2:
            samples.append(elapsed * 1000)
    deck.close()
    made = len(deck.checkpoints()) - already
    if made != (rounds + 2 if enabled else 0):
        raise RuntimeError(f"expected {rounds + 2 if enabled else 0} new checkpoints, found {made}")
    return statistics.median(samples)


TOOLS = ("write_file", "terminal")


def run(files: int, rounds: int) -> dict[str, Any]:
    out: dict[str, Any] = {"files": files, "rounds": rounds, "tools": {}}
    for tool in TOOLS:
        row: dict[str, Any] = {}
        for label, count in (("small", 10), ("large", files)):
            with tempfile.TemporaryDirectory(prefix=f"tooldeck-bench-cp-{label}-") as tmp:
                root = Path(tmp)
                make_workspace(root, count)
                # Alternate off and on, so drift on a shared machine falls on both.
                off, on = [], []
                for _ in range(3):
                    off.append(p50_ms(root, tool, enabled=False, rounds=rounds))
                    on.append(p50_ms(root, tool, enabled=True, rounds=rounds))
                row[label] = {
                    "files": count + 1,
                    "off_p50_ms": round(statistics.median(off), 3),
                    "on_p50_ms": round(statistics.median(on), 3),
                }
                row[label]["overhead_ms"] = round(row[label]["on_p50_ms"] - row[label]["off_p50_ms"], 3)
        row["large_minus_small_on_ms"] = round(row["large"]["on_p50_ms"] - row["small"]["on_p50_ms"], 3)
        out["tools"][tool] = row
    out["goal_s"] = GOAL_S
    out["goal_met"] = all(r["large_minus_small_on_ms"] < GOAL_S * 1000 for r in out["tools"].values())
    return out


def format_table(r: dict[str, Any]) -> str:
    lines = [
        f"one 4 KiB file rewritten through the deck, p50 of {r['rounds']} calls (median of 3 runs each), ms",
        "",
        f"{'tool':<11} {'workspace':<22} {'off':>9} {'on':>9} {'overhead':>9}",
    ]
    for tool, row in r["tools"].items():
        for label in ("small", "large"):
            cell = row[label]
            lines.append(
                f"{tool:<11} {label + ' (' + format(cell['files'], ',') + ' files)':<22} "
                f"{cell['off_p50_ms']:9.2f} {cell['on_p50_ms']:9.2f} {cell['overhead_ms']:9.2f}"
            )
    lines.append("")
    for tool, row in r["tools"].items():
        lines.append(f"{tool}: large minus small, everything on: {row['large_minus_small_on_ms']:.2f} ms")
    verdict = "met" if r["goal_met"] else "NOT met"
    lines.append(
        f"goal: a one-file change within {r['goal_s']} s of the same call in a small workspace: {verdict}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks checkpoints [--files N] [--rounds N] [--json]`."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m benchmarks checkpoints", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--files", type=int, default=20_000, help="files in the large workspace")
    ap.add_argument("--rounds", type=int, default=30, help="timed calls per figure")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.files < 10:
        ap.error("--rounds must be >= 1 and --files >= 10")
    result = run(args.files, args.rounds)
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
