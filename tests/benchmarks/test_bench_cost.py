"""`python -m benchmarks cost` runs end to end on (the first 60 of) the real LiveMCP schemas, and its
figures hang together: every case's found tools run, native/cache-stable deferral keeps each
request a prefix of the next, and costs less than binding every tool and than the long listings."""

from __future__ import annotations

import json
from typing import Any

from tests.support.benchrun import bench

from ..dialects.conftest import LIVEMCP


def test_bench_cost_json(livemcp_tools: list[dict[str, Any]]) -> None:
    proc = bench("cost", "--json", "--limit", "60", "--schemas", str(LIVEMCP), timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["tools"] == 60
    rows = {(r["dialect"], r["case"]): r for r in out["cases"]}
    for dialect, native in (("anthropic", "native"), ("responses", "native"), ("openai", "cache-stable")):
        bound, fast = rows[(dialect, "all bound")], rows[(dialect, native)]
        assert bound["vs_bound"] == 1 and bound["requests"] == 4 and fast["requests"] == 6
        assert all(rows[(dialect, case)]["found_tools_ran"] for case in ("all bound", native))
        assert fast["worst_reuse"] >= 0.95 and fast["reused_tokens"][0] == 0
        assert 0 < fast["vs_bound"] < rows[(dialect, "deferred, summaries")]["vs_bound"] < 1
        # Found with native: off, a tool joins tools[]: the next request starts differently.
        assert rows[(dialect, "deferred, summaries")]["worst_reuse"] < 0.95
        assert sum(fast["tokens"]) < sum(bound["tokens"])


def test_bench_cost_bad_path() -> None:
    bad = bench("cost", "--schemas", "/nonexistent/schemas.json")
    assert bad.returncode == 2 and "not found" in bad.stderr
