"""`python -m benchmarks NAME [options]`: run one benchmark and print its table."""

from __future__ import annotations

import importlib
import sys

# name -> (module, one line). Each module has `main(argv: list[str]) -> int`. Module names must not
# shadow a package a benchmark's child process imports (a script run from this folder sees it first).
BENCHMARKS: dict[str, tuple[str, str]] = {
    "assembly": ("benchmarks.assembly", "cold/warm tool assembly on the 300-tool workload vs Hermes"),
    "cli": ("benchmarks.cli_cold", "`tooldeck tools --json` as a whole process vs Hermes's first list"),
    "dispatch": ("benchmarks.dispatch", "cost of one tool call through the execution path vs peers"),
    "dialects": ("benchmarks.dialects", "rendering 527 real MCP schemas per provider dialect vs Hermes"),
    "safety": (
        "benchmarks.safety",
        "shell-command guard: recall and false positives on labelled splits vs Hermes",
    ),
    "patch": ("benchmarks.patch", "patch with a one-line fuzzy match in a 10,000-line file vs Hermes"),
    "serve": (
        "benchmarks.serve",
        "per-call overhead of a tool through `tooldeck serve` vs a bare mcp SDK server",
    ),
    "mcp": (
        "benchmarks.mcp_client",
        "4 real MCP servers ready at once vs in turn; a call vs the bare mcp SDK",
    ),
    "batch": ("benchmarks.batch", "tooldeck batch items/s by worker count, local engine and Ray"),
    "search": (
        "benchmarks.search",
        "tool retrieval hit@k on MetaTool/BFCL and latency vs plain BM25 and DeerFlow",
    ),
    "deferral": (
        "benchmarks.deferral",
        "tokens saved by deferring tools behind tool_search (LiveMCP, the example); a search's cost",
    ),
    "cost": (
        "benchmarks.cost",
        "input cost of a conversation over 526 MCP tools per dialect: bound vs deferred vs native/cache-stable",
    ),
    "checkpoints": (
        "benchmarks.checkpoints",
        "what checkpointing adds to a write_file call, in a small and a 20,000-file workspace",
    ),
    "conformance": (
        "benchmarks.conformance",
        "`tooldeck serve` vs the official MCP conformance suite (both pinned versions), SDK server as control",
    ),
    "interop": (
        "benchmarks.interop",
        "per-call overhead of the LangChain, pydantic-ai and OpenAI Agents adapters vs their own tools",
    ),
    "graph": (
        "benchmarks.import_graph",
        "src/tooldeck's file import graph: floors, arrows back up, circles across files",
    ),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m benchmarks NAME [options]   (NAME --help for its options)\n")
        for name, (_, line) in BENCHMARKS.items():
            print(f"  {name:<10} {line}")
        return 0 if argv else 2
    entry = BENCHMARKS.get(argv[0])
    if entry is None:
        print(f"unknown benchmark {argv[0]!r}; one of: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(entry[0])
    code: int = module.main(argv[1:])
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
