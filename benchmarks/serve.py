"""`python -m benchmarks serve`: per-call overhead of a tool called through `tooldeck serve` (stdio).

Two servers, each a fresh process spoken to over stdio by the official `mcp` SDK client, in
alternating order per round:

  * tooldeck: `tooldeck serve` over a config whose one tool is `shout` - every call assembles the
    loadout (cached) and runs through the executor (parse, validate, policy, run on a worker
    thread under a deadline, shape);
  * bare: the same function as a tool of the SDK's own `MCPServer` (`serve_bare.py`).

Each round makes `--calls` sequential `tools/call`s after `--warmup` unmeasured ones and keeps
the mean per call; the table shows the median over rounds, the ratio and the difference.
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


def bare_command() -> list[str]:
    return [sys.executable, str(HERE / "serve_bare.py")]


async def per_call_us(command: list[str], *, calls: int, warmup: int, mode: str) -> float:
    """Mean microseconds per sequential `tools/call` over one stdio session."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params, mode=mode) as client:
        for _ in range(warmup):
            await client.call_tool("shout", {"text": "warm"})
        started = time.perf_counter()
        for i in range(calls):
            result = await client.call_tool("shout", {"text": f"call {i}", "times": 2})
            if result.is_error:
                raise RuntimeError(f"{command[0]}: the call failed: {result.content}")
        return (time.perf_counter() - started) / calls * 1e6


def run_bench(rounds: int, calls: int, warmup: int, mode: str) -> dict[str, Any]:
    samples: dict[str, list[float]] = {"tooldeck": [], "bare": []}
    with tempfile.TemporaryDirectory(prefix="tooldeck-bench-serve-") as tmp:
        commands = {"tooldeck": tooldeck_command(Path(tmp)), "bare": bare_command()}
        for r in range(rounds):
            order = ["tooldeck", "bare"] if r % 2 == 0 else ["bare", "tooldeck"]
            for name in order:
                samples[name].append(
                    asyncio.run(per_call_us(commands[name], calls=calls, warmup=warmup, mode=mode))
                )
    tooldeck = statistics.median(samples["tooldeck"])
    bare = statistics.median(samples["bare"])
    return {
        "mode": mode,
        "rounds": rounds,
        "calls": calls,
        "samples": samples,
        "tooldeck_us": round(tooldeck, 1),
        "bare_us": round(bare, 1),
        "overhead_us": round(tooldeck - bare, 1),
        "ratio": round(tooldeck / bare, 2) if bare else None,
    }


def table(report: dict[str, Any]) -> str:
    mode = "2025 handshake" if report["mode"] == "legacy" else "negotiated (2026-07-28)"
    lines = [
        f"tools/call over stdio, {report['calls']} sequential calls x {report['rounds']} rounds, {mode}",
        f"  {'server':<32} {'per call (us)':>14}",
        f"  {'tooldeck serve':<32} {report['tooldeck_us']:>14.1f}",
        f"  {'bare mcp SDK MCPServer':<32} {report['bare_us']:>14.1f}",
        f"  overhead: {report['overhead_us']:+.1f} us per call (tooldeck / bare = {report['ratio']}x)",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks serve", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--mode", choices=("legacy", "auto"), default="legacy", help="client protocol era")
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    report = run_bench(args.rounds, args.calls, args.warmup, args.mode)
    print(json.dumps(report, indent=2) if args.as_json else table(report))
    return 0
