"""`python -m benchmarks deferral`: what deferring tools behind `tool_search` saves, and what a search costs.

Measured in one run, in the tokens of two dialects (OpenAI Chat Completions and Anthropic
Messages, counted offline with o200k_base):

  * LiveMCP: the 527 real MCP tools of 70 servers (`mcp__<server>__<tool>`, each server its own
    toolset) with tooldeck's built-in library beside them. "all exposed" is every schema sent on
    every request; "deferred" is what is sent instead when `tool_search.defer: [mcp]`: the exposed
    schemas (the built-ins and `tool_search`) plus the system prompt section naming the deferred
    tools, for each `tool_search.listing` (summaries, names, none);
  * the example configuration (`examples/tooldeck.yaml`, which defers the browser and web tools):
    as configured vs with `tool_search.enabled: false`;
  * the cost of one `tool_search` call on the LiveMCP catalog through the execution path: the
    tokens of its result (the full definitions of the matches) and its latency (p50/p99 over the
    queries, first call with the index build reported apart), with the ranker of `--ranker`
    (default `auto`, tool_search's own default: `hybrid` with the semantic extra, whose first
    call embeds the catalog; `bm25` measures the call path without the model).

The saving pays for itself when a run needs fewer tools than the catalog holds: a run pays the
listing on every request and a search result once per search.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.dialects import find_schemas
from tooldeck import Deck, Tool, load_config, parse_config
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.dialects import token_costs
from tooldeck._core.dialects.names import safe_name
from tooldeck._core.dialects.tokens import count_text
from tooldeck._core.disclosure import deferred_listing
from tooldeck._core.sources.base import StaticSource
from tooldeck.errors import ConfigError

CHECKOUT = Path(__file__).resolve().parents[1]
EXAMPLE = CHECKOUT / "examples" / "tooldeck.yaml"
DIALECTS = ("openai", "anthropic")
LISTINGS = ("summaries", "names", "none")
QUERIES = (
    "search the web for recent news",
    "read the contents of a file",
    "create a new issue in a github repository",
    "send an email to a colleague",
    "run a sql query against the database",
    "get the weather forecast for a city",
    "take a screenshot of a web page",
    "translate a text into french",
    "list my calendar events for tomorrow",
    "search for academic papers on arxiv",
    "get the current stock price",
    "find a route between two places on a map",
)


@dataclass
class DeferralResult:
    tools: int
    savings: list[dict[str, Any]] = field(default_factory=list)
    search: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"livemcp_tools": self.tools, "savings": self.savings, "tool_search_call": self.search}


def mcp_tools(entries: list[dict[str, Any]]) -> list[Tool]:
    """The LiveMCP entries as the MCP source would list them (names made unique and provider-safe)."""
    taken: set[str] = set()
    tools = []
    for e in entries:
        server = safe_name(str(e["server"]).replace("-", "_"))[:20]
        tools.append(
            Tool(
                name=safe_name(f"mcp__{server}__{e['name']}"[:64], taken),
                description=e.get("description") or "",
                parameters=e.get("inputSchema") or {"type": "object", "properties": {}},
                toolset=f"mcp-{server}",
            )
        )
    return tools


def request_tokens(loadout: Loadout, dialect: str) -> int:
    """Tokens a request carries for tools: the exposed schemas plus the deferred tools' listing."""
    listing = deferred_listing(loadout)
    return sum(token_costs(loadout, dialect).values()) + (count_text(listing) if listing else 0)


def _deck(tools: list[Tool], home: str, **tool_search: Any) -> Deck:
    data = {"home": home, "plugins": {"enabled": False}, "tool_search": tool_search}
    return Deck(parse_config(data, env={}), sources=[StaticSource(tools, name="livemcp", kind="mcp")])


def livemcp_savings(tools: list[Tool], home: str) -> list[dict[str, Any]]:
    rows = []
    everything = _deck(tools, home).loadout()
    decks = {
        listing: _deck(tools, home, enabled=True, defer=["mcp"], listing=listing) for listing in LISTINGS
    }
    for dialect in DIALECTS:
        row: dict[str, Any] = {"case": "livemcp + built-ins", "dialect": dialect}
        row["all_exposed"] = request_tokens(everything, dialect)
        for listing, deck in decks.items():
            row[f"deferred_{listing}"] = request_tokens(deck.loadout(), dialect)
        row["saved_summaries_pct"] = round(100 * (1 - row["deferred_summaries"] / row["all_exposed"]), 1)
        rows.append(row)
    return rows


def example_savings() -> list[dict[str, Any]]:
    config = load_config(EXAMPLE)
    rows = []
    with Deck(config) as configured, Deck(config.with_section("tool_search", enabled=False)) as plain:
        for dialect in DIALECTS:
            before = request_tokens(plain.loadout(), dialect)
            after = request_tokens(configured.loadout(), dialect)
            rows.append(
                {
                    "case": "examples/tooldeck.yaml",
                    "dialect": dialect,
                    "all_exposed": before,
                    "deferred_summaries": after,
                    "deferred_tools": len(configured.loadout().deferred),
                    "saved_summaries_pct": round(100 * (1 - after / before), 1),
                }
            )
    return rows


def search_cost(tools: list[Tool], home: str, ranker: str = "auto") -> dict[str, Any]:
    deck = _deck(tools, home, enabled=True, defer=["mcp"], ranker=ranker)
    started = time.perf_counter()
    first = deck.call_sync("tool_search", {"query": QUERIES[0]})
    first_ms = (time.perf_counter() - started) * 1000
    times, tokens, found = [], [], []
    for _ in range(3):
        for query in QUERIES:
            started = time.perf_counter()
            result = deck.call_sync("tool_search", {"query": query})
            times.append((time.perf_counter() - started) * 1000)
            tokens.append(count_text(result.content))
            found.append(len(json.loads(result.content)["loaded"]))
    times.sort()
    return {
        "ranker": ranker,
        "catalog": len(deck.loadout().deferred),
        "queries": len(QUERIES),
        "first_call_ms": round(first_ms, 2),
        "p50_ms": round(statistics.median(times), 3),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
        "result_tokens_mean": round(statistics.mean(tokens)),
        "tools_per_result_mean": round(statistics.mean(found), 2),
        "first_ok": first.ok,
    }


def run_deferral_bench(schemas: Path, *, ranker: str = "auto") -> DeferralResult:
    entries = json.loads(schemas.read_text(encoding="utf-8"))
    tools = mcp_tools(entries)
    with tempfile.TemporaryDirectory(prefix="tooldeck-bench-deferral-") as home:
        result = DeferralResult(len(tools))
        result.savings = livemcp_savings(tools, home) + example_savings()
        result.search = search_cost(tools, home, ranker)
    return result


def format_table(result: DeferralResult) -> str:
    lines = [
        "Tokens of tools per request (schemas + the deferred tools' listing), o200k_base",
        f"{'case':<24} {'dialect':<10} {'all exposed':>12} {'summaries':>10} {'names':>8} {'none':>8} {'saved':>7}",
    ]
    for row in result.savings:
        names = row.get("deferred_names", "")
        none = row.get("deferred_none", "")
        lines.append(
            f"{row['case']:<24} {row['dialect']:<10} {row['all_exposed']:>12} {row['deferred_summaries']:>10} "
            f"{names:>8} {none:>8} {row['saved_summaries_pct']:>6}%"
        )
    s = result.search
    lines += [
        "",
        f"One tool_search call on {s['catalog']} deferred tools ({s['queries']} queries x 3, ranker "
        f"{s['ranker']}, through the executor):",
        f"  first call {s['first_call_ms']} ms (index build); then p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms; "
        f"result {s['result_tokens_mean']} tokens on average ({s['tools_per_result_mean']} definitions)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks deferral [--schemas FILE] [--ranker R] [--json]`."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m benchmarks deferral", description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemas", default=None, help="LiveMCP schema file (default: in the shared folder)")
    ap.add_argument(
        "--ranker",
        choices=("auto", "bm25", "semantic", "hybrid"),
        default="auto",
        help="tool_search.ranker for the search cost (default auto, as configured out of the box)",
    )
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    try:
        result = run_deferral_bench(find_schemas(args.schemas), ranker=args.ranker)
    except ConfigError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), indent=2) if args.json else format_table(result))
    return 0
