"""`python -m benchmarks serve`: per-call overhead of a tool called through `tooldeck serve` (stdio).

Three servers, each a fresh process spoken to over stdio by the official `mcp` SDK client, both
connected at once and called in turn:

  * tooldeck: `tooldeck serve` over a config whose one tool is `shout` - every call assembles the
    loadout (cached) and runs through the executor (parse, validate, policy, run on a worker
    thread under a deadline, shape);
  * mcpserver: the same function as a tool of the SDK's own `MCPServer` (`serve_bare.py`);
  * lowlevel: the SDK's low-level `Server` with a hand-written handler - the floor.

Each round makes `--calls` sequential `tools/call`s to each after `--warmup` unmeasured ones
and keeps the median call; the table shows the median over rounds, the ratio and the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONTENDERS = {
    "tooldeck": "tooldeck serve",
    "mcpserver": "bare SDK MCPServer (same function)",
    "lowlevel": "bare SDK low-level Server (floor)",
}
CONFIG = """\
platform_toolsets: {cli: [bench]}
tools:
  - use: serve_tool:shout
home: home
"""
TOOL = '''\
from tooldeck import tool


@tool(toolset="bench")
def shout(text: str, times: int = 1) -> str:
    """Upper-case a text."""
    return " ".join([text.upper()] * times)
'''


def tooldeck_command(folder: Path) -> list[str]:
    (folder / "serve_tool.py").write_text(TOOL)
    (folder / "tooldeck.yaml").write_text(CONFIG)
    tooldeck = Path(sys.executable).parent / "tooldeck"
    return [str(tooldeck), "serve", "--config", str(folder / "tooldeck.yaml")]


def bare_commands() -> dict[str, list[str]]:
    script = str(HERE / "serve_bare.py")
    return {"mcpserver": [sys.executable, script], "lowlevel": [sys.executable, script, "--lowlevel"]}


def in_memory_servers(folder: Path) -> dict[str, Any]:
    """The three servers as objects in this process, for the SDK's in-memory transport."""
    from benchmarks import serve_bare
    from tooldeck._deck import Deck
    from tooldeck.serve import DeckServer

    tooldeck_command(folder)
    sys.path.insert(0, str(folder))
    deck = Deck.load(folder / "tooldeck.yaml")
    return {
        "tooldeck": DeckServer(deck).server,
        "mcpserver": serve_bare.mcpserver(),
        "lowlevel": serve_bare.lowlevel(),
    }


async def one_round(targets: dict[str, Any], *, calls: int, warmup: int, mode: str) -> dict[str, float]:
    """Median microseconds per `tools/call`, all servers connected at once and called in turn.

    Calling them in turn (A B C, then B C A, ...) exposes all to the same moment's machine load,
    and the median of single calls keeps one stalled call from moving the figure.
    """
    from contextlib import AsyncExitStack

    from mcp import Client, StdioServerParameters

    async with AsyncExitStack() as stack:
        clients = {
            name: await stack.enter_async_context(
                Client(
                    StdioServerParameters(command=target[0], args=target[1:])
                    if isinstance(target, list)
                    else target,
                    mode=mode,
                )
            )
            for name, target in targets.items()
        }
        for client in clients.values():
            for _ in range(warmup):
                await client.call_tool("shout", {"text": "warm"})
        timings: dict[str, list[float]] = {name: [] for name in clients}
        names = list(clients)
        for i in range(calls):
            turn = i % len(names)
            for name in names[turn:] + names[:turn]:  # each goes first in turn
                started = time.perf_counter()
                result = await clients[name].call_tool("shout", {"text": f"call {i}", "times": 2})
                timings[name].append((time.perf_counter() - started) * 1e6)
                if result.is_error:
                    raise RuntimeError(f"{name}: the call failed: {result.content}")
        return {name: statistics.median(values) for name, values in timings.items()}


def run_bench(rounds: int, calls: int, warmup: int, mode: str, transport: str = "stdio") -> dict[str, Any]:
    samples: dict[str, list[float]] = {name: [] for name in CONTENDERS}
    with tempfile.TemporaryDirectory(prefix="tooldeck-bench-serve-") as tmp:
        targets: dict[str, Any] = (
            {"tooldeck": tooldeck_command(Path(tmp)), **bare_commands()}
            if transport == "stdio"
            else in_memory_servers(Path(tmp))
        )
        for _ in range(rounds):
            measured = asyncio.run(one_round(targets, calls=calls, warmup=warmup, mode=mode))
            for name, value in measured.items():
                samples[name].append(value)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    tooldeck = medians["tooldeck"]
    return {
        "mode": mode,
        "transport": transport,
        "rounds": rounds,
        "calls": calls,
        "samples": samples,
        "median_us": {name: round(value, 1) for name, value in medians.items()},
        "overhead_us": {name: round(tooldeck - medians[name], 1) for name in ("mcpserver", "lowlevel")},
        "ratio": {name: round(tooldeck / medians[name], 2) for name in ("mcpserver", "lowlevel")},
    }


def table(report: dict[str, Any]) -> str:
    mode = "2025 handshake" if report["mode"] == "legacy" else "negotiated (2026-07-28)"
    lines = [
        f"tools/call over {report.get('transport', 'stdio')}, {report['calls']} calls each "
        f"x {report['rounds']} rounds, {mode}",
        f"  {'server':<40} {'median call (us)':>16} {'tooldeck - it':>14} {'tooldeck / it':>14}",
    ]
    for name, label in CONTENDERS.items():
        us = report["median_us"][name]
        if name == "tooldeck":
            lines.append(f"  {label:<40} {us:>16.1f} {'':>14} {'':>14}")
        else:
            diff, ratio = report["overhead_us"][name], report["ratio"][name]
            lines.append(f"  {label:<40} {us:>16.1f} {diff:>+14.1f} {ratio:>13.2f}x")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks serve", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--mode", choices=("legacy", "auto"), default="legacy", help="client protocol era")
    parser.add_argument(
        "--transport",
        choices=("stdio", "memory"),
        default="stdio",
        help="stdio: each server a process (the real setup); memory: all in this process, the SDK's "
        "in-memory transport (no OS scheduling noise: the servers' own cost)",
    )
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    report = run_bench(args.rounds, args.calls, args.warmup, args.mode, args.transport)
    print(json.dumps(report, indent=2) if args.as_json else table(report))
    return 0
