"""Data and metrics of the search benchmark: the retrieval sets beside the project, hit@k, recall@k.

The definitions are those of the reference scorer (`data/score.py` in the shared folder):
hit@k is the share of queries with at least one gold tool in the top k; recall@k, over
multi-tool queries only, the mean share of a query's gold tools in the top k; a repeated name
counts once and a name not in the catalog is a miss that still takes its rank.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

KS = (1, 5, 10)
DATASETS = ("metatool", "bfcl")
Ranker = Callable[[str, int], list[str]]


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    gold: tuple[str, ...]
    category: str | None = None


@dataclass(frozen=True)
class Dataset:
    name: str
    tools: list[dict[str, Any]]
    queries: list[Query]


def load_dataset(name: str, shared: str | None = None, *, sample: int | None = None) -> Dataset:
    """`data/retrieval/<name>_tools.json` and `<name>_queries_dev.jsonl` from the shared folder."""
    from benchmarks.paths import shared_file

    tools = json.loads(shared_file(f"data/retrieval/{name}_tools.json", shared).read_text(encoding="utf-8"))
    lines = shared_file(f"data/retrieval/{name}_queries_dev.jsonl", shared).read_text(encoding="utf-8")
    queries = []
    for line in lines.splitlines():
        if line.strip():
            item = json.loads(line)
            queries.append(Query(item["id"], item["query"], tuple(item["gold"]), item.get("category")))
    if sample is not None and sample < len(queries):
        queries = random.Random(0).sample(queries, sample)
    return Dataset(name, tools, queries)


def fold_of(query_id: str) -> int:
    """0 or 1: a fixed split of the queries into two halves, by a hash of the id."""
    return hashlib.sha256(query_id.encode()).digest()[0] & 1


@dataclass
class Scores:
    """hit@k (and multi-tool recall@k) of one ranker on one query set, with latencies."""

    n: int = 0
    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    multi: int = 0
    recall: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    latencies: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # thread CPU time: unaffected by a busy machine
    by_category: dict[str, list[int]] = field(default_factory=dict)  # category -> [n, hit@5]

    def add(self, gold: Sequence[str], ranked: Sequence[str], category: str | None = None) -> None:
        seen: list[str] = []
        for name in ranked:
            if name not in seen:
                seen.append(name)
        wanted = set(gold)
        self.n += 1
        for k in KS:
            self.hits[k] += bool(wanted & set(seen[:k]))
        if len(wanted) > 1:
            self.multi += 1
            for k in KS:
                self.recall[k] += len(wanted & set(seen[:k])) / len(wanted)
        if category:
            row = self.by_category.setdefault(category, [0, 0])
            row[0] += 1
            row[1] += bool(wanted & set(seen[:5]))

    def hit(self, k: int) -> float:
        return self.hits[k] / self.n if self.n else math.nan

    def multi_recall(self, k: int) -> float | None:
        return self.recall[k] / self.multi if self.multi else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": self.n}
        out.update({f"hit@{k}": round(self.hit(k), 4) for k in KS})
        if self.multi:
            out.update({f"multi_recall@{k}": round(self.recall[k] / self.multi, 4) for k in (5, 10)})
        if self.latencies:
            out["ms_p50"] = round(percentile(self.latencies, 50) * 1000, 3)
            out["ms_p99"] = round(percentile(self.latencies, 99) * 1000, 3)
            out["cpu_ms_p50"] = round(percentile(self.cpu, 50) * 1000, 3)
            out["cpu_ms_p99"] = round(percentile(self.cpu, 99) * 1000, 3)
        if self.by_category:
            out["hit@5_by_category"] = {c: round(h / n, 4) for c, (n, h) in sorted(self.by_category.items())}
        return out


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile, as the reference scorer computes it."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def evaluate(rank: Ranker, queries: Sequence[Query], *, depth: int = 10) -> Scores:
    scores = Scores()
    for q in queries:
        started, cpu = time.perf_counter(), time.thread_time()
        ranked = rank(q.text, depth)
        scores.latencies.append(time.perf_counter() - started)
        scores.cpu.append(time.thread_time() - cpu)
        scores.add(q.gold, ranked, q.category)
    return scores


def big_catalog(tools: Sequence[dict[str, Any]], size: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """`tools` plus renamed copies with one description word dropped, up to `size` tools."""
    rng = random.Random(seed)
    out = [dict(t) for t in tools[:size]]
    copy = 0
    while len(out) < size:
        copy += 1
        for tool in tools:
            if len(out) >= size:
                break
            words = str(tool.get("description") or "").split()
            if len(words) > 3:
                del words[rng.randrange(len(words))]
            out.append({**tool, "name": f"{tool['name']}_copy{copy}", "description": " ".join(words)})
    return out
