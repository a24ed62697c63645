"""Hermes 0.19.0's side of `python -m benchmarks patch`; run with the Hermes venv's python.

    python patch_hermes.py ROUNDS < scenarios.json

Reads a JSON list of `{"name", "content", "old", "new"}` on stdin, times Hermes's own
`tools.fuzzy_match.fuzzy_find_and_replace` on each (median seconds over ROUNDS calls, after
one warm-up), and prints one JSON object: per scenario the median, the strategy Hermes
reports, its error if any, and the resulting text. Standard library + Hermes only.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any


def main() -> None:
    from tools.fuzzy_match import fuzzy_find_and_replace  # type: ignore[import-not-found]

    rounds = int(sys.argv[1])
    scenarios: list[dict[str, str]] = json.load(sys.stdin)
    out: dict[str, Any] = {}
    for s in scenarios:
        result = fuzzy_find_and_replace(s["content"], s["old"], s["new"], False)  # warm-up
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            result = fuzzy_find_and_replace(s["content"], s["old"], s["new"], False)
            times.append(time.perf_counter() - started)
        text, count, strategy, error = result
        out[s["name"]] = {
            "seconds": statistics.median(times),
            "strategy": strategy,
            "count": count,
            "error": error,
            "text": text,
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
