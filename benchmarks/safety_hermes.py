"""Hermes 0.19.0's side of `python -m benchmarks safety`; run with the Hermes venv's python.

    python safety_hermes.py ROUNDS < commands.json

Reads a JSON list of command strings on standard input and prints one JSON object: Hermes's
decision per command and the median seconds each took over ROUNDS rounds. A command counts as
flagged when any of the three pattern layers Hermes's terminal guard consults on the local
backend fires: `detect_hardline_command` (a block even in yolo mode), `_check_sudo_stdin_guard`
(a block) or `detect_dangerous_command` (an approval prompt). The caller sets HOME to a scratch
folder and turns the optional external scanner off. Standard library + Hermes only.
"""

from __future__ import annotations

import json
import logging
import statistics
import sys
import time
from typing import Any


def _decide(approval: Any, command: str) -> tuple[str, str | None]:
    hit, why = approval.detect_hardline_command(command)
    if hit:
        return "block", str(why)
    hit, why = approval._check_sudo_stdin_guard(command)
    if hit:
        return "block", str(why)
    hit, _key, why = approval.detect_dangerous_command(command)
    if hit:
        return "approve", str(why)
    return "safe", None


def main() -> None:
    logging.disable(logging.CRITICAL)
    from tools import approval  # type: ignore[import-not-found]

    rounds = int(sys.argv[1])
    commands: list[str] = json.load(sys.stdin)
    decisions = [_decide(approval, c) for c in commands]
    seconds: list[float] = []
    for command in commands:
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            _decide(approval, command)
            times.append(time.perf_counter() - start)
        seconds.append(statistics.median(times))
    out = {"decisions": [{"verdict": v, "reason": r} for v, r in decisions], "seconds": seconds}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
