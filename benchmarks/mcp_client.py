"""`python -m benchmarks mcp`: MCP servers - time to a ready loadout, and the cost of a call.

Ready time: four real stdio servers (mcp-server-time, mcp-server-git, server-everything,
server-filesystem). Each round builds a deck over each server alone (the slowest of these is
the floor), a deck over all four at once (tooldeck connects them concurrently), and the four
single decks one after another (what connecting them in turn costs). Target: all four at once
within 1.2 x the slowest single server.

Per-call overhead: the same tool (`echo` of server-everything over stdio) called through the
deck's whole execution path (`Executor.execute`: parse, validate, policy, the MCP loop, result
shaping) and through the bare `mcp` SDK client (`ClientSession.call_tool` over the SDK's
`stdio_client`), both open at once and taking turns call by call, so that a busy machine slows
both alike; the medians of the per-call times are compared. Target: tooldeck within 1.1 x the
bare SDK. Measured twice, each against the bare SDK in the same run: from a loop of the
caller's own (`asyncio.run`; the deck's MCP sessions live on a loop in another thread, so each
deck call crosses threads there and back, which the bare client, on the caller's loop, never
does), and on the deck's own loop (`Deck.run`, both clients there: no hand-off). The first is
what async code on a loop of its own pays; the second what code run by `Deck.run` (and
`Deck.call_sync`, `tooldeck run`/`chat` with MCP servers) pays.

The servers come from the checkout's setup (the venv and .node/): run `bash scripts/setup.sh`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.paths import CHECKOUT, BenchSetupError

if TYPE_CHECKING:
    from tooldeck import Deck

READY_TARGET = 1.2
CALL_TARGET = 1.1
NODE = CHECKOUT / ".node" / "node_modules" / "@modelcontextprotocol"


def servers(workdir: Path) -> dict[str, dict[str, Any]]:
    """The four real servers, as `mcp_servers` entries."""
    bin_dir = Path(sys.executable).parent
    repo = workdir / "repo"
    if not repo.exists():
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    found: dict[str, dict[str, Any]] = {
        "time": {"command": str(bin_dir / "mcp-server-time")},
        "git": {"command": str(bin_dir / "mcp-server-git"), "args": ["--repository", str(repo)]},
        "everything": {"command": "node", "args": [str(NODE / "server-everything" / "dist" / "index.js")]},
        "filesystem": {
            "command": "node",
            "args": [str(NODE / "server-filesystem" / "dist" / "index.js"), str(workdir)],
        },
    }
    for name, entry in found.items():
        path = Path(entry["args"][0] if entry["command"] == "node" else entry["command"])
        if not path.exists():
            raise BenchSetupError(f"MCP server {name} not installed ({path}); run scripts/setup.sh")
    return found


def ready_time(workdir: Path, chosen: dict[str, dict[str, Any]]) -> float:
    """Seconds from building a deck over `chosen` to its loadout (every server ready)."""
    from tooldeck import Deck
    from tooldeck.config_load import parse_config

    config = parse_config(
        {"mcp_servers": chosen, "home": str(workdir / "home"), "plugins": {"enabled": False}},
        base_dir=str(workdir),
    )
    started = time.perf_counter()
    deck = Deck(config, builtins=False)
    loadout = deck.loadout()
    elapsed = time.perf_counter() - started
    deck.close()
    states = [s for s in deck.diagnostics() if s.level == "error"]
    if states or len(loadout.exposed) < len(chosen):
        raise BenchSetupError(f"servers did not all get ready: {'; '.join(map(str, states))}")
    return elapsed


def measure_ready(workdir: Path, rounds: int) -> dict[str, Any]:
    every = servers(workdir)
    singles: dict[str, list[float]] = {name: [] for name in every}
    together: list[float] = []
    in_turn: list[float] = []
    for _ in range(rounds):
        for name, entry in every.items():
            singles[name].append(ready_time(workdir, {name: entry}))
        together.append(ready_time(workdir, every))
        in_turn.append(sum(ready_time(workdir, {name: entry}) for name, entry in every.items()))
    single = {name: statistics.median(v) for name, v in singles.items()}
    slowest = max(single.values())
    return {
        "single_s": single,
        "slowest_single_s": slowest,
        "concurrent_s": statistics.median(together),
        "sequential_s": statistics.median(in_turn),
        "ratio": statistics.median(together) / slowest,
    }


async def interleaved(workdir: Path, calls: int, warmup: int) -> tuple[list[float], list[float]]:
    """Per-call seconds of `echo` through the bare SDK client and through the deck, call by call,
    both made from the caller's own event loop (not the deck's: each deck call crosses threads)."""
    deck = _echo_deck(workdir)
    try:
        return await _alternate(deck, workdir, calls, warmup)
    finally:
        deck.close()


def on_deck_loop(workdir: Path, calls: int, warmup: int) -> tuple[list[float], list[float]]:
    """The same, both clients run on the deck's own loop through `Deck.run` (no thread hand-off)."""
    deck = _echo_deck(workdir)
    try:
        return deck.run(_alternate(deck, workdir, calls, warmup))
    finally:
        deck.close()


def _echo_deck(workdir: Path) -> Deck:
    from tooldeck import Deck
    from tooldeck.config_load import parse_config

    entry = servers(workdir)["everything"]
    config = parse_config(
        {"mcp_servers": {"ev": entry}, "home": str(workdir / "home"), "plugins": {"enabled": False}},
        base_dir=str(workdir),
    )
    return Deck(config, builtins=False)


async def _alternate(deck: Deck, workdir: Path, calls: int, warmup: int) -> tuple[list[float], list[float]]:
    """Both clients open at once (each with its own server process), taking turns one call each in
    alternating order: a machine busy with something else slows both alike."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from tooldeck.execution.executor import Executor
    from tooldeck.execution.types import ToolCall

    entry = servers(workdir)["everything"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"])
    bare: list[float] = []
    ours: list[float] = []
    executor = Executor(deck.loadout())
    batch = [ToolCall("c1", "mcp__ev__echo", {"message": "hi"})]
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()

            async def bare_call() -> None:
                await session.call_tool("echo", {"message": "hi"})

            async def deck_call() -> None:
                [result] = await executor.execute(batch)
                if not result.ok:
                    raise BenchSetupError(f"the call failed: {result.content}")

            for i in range(warmup + calls):
                pair = [(bare_call, bare), (deck_call, ours)]
                for call, into in pair if i % 2 == 0 else reversed(pair):
                    started = time.perf_counter()
                    await call()
                    if i >= warmup:
                        into.append(time.perf_counter() - started)
    return bare, ours


def measure_calls(workdir: Path, rounds: int, calls: int, warmup: int) -> dict[str, Any]:
    found: dict[str, tuple[list[float], list[float]]] = {"foreign_loop": ([], []), "deck_loop": ([], [])}
    for _ in range(rounds):
        for where, (bare, ours) in found.items():
            if where == "foreign_loop":
                b, o = asyncio.run(interleaved(workdir, calls, warmup))
            else:
                b, o = on_deck_loop(workdir, calls, warmup)
            bare += b
            ours += o
    report: dict[str, Any] = {}
    for where, (bare, ours) in found.items():
        bare_us = statistics.median(bare) * 1e6
        ours_us = statistics.median(ours) * 1e6
        report[where] = {"bare_sdk_us": bare_us, "tooldeck_us": ours_us, "ratio": ours_us / bare_us}
    return report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each measurement (median shown)")
    parser.add_argument("--calls", type=int, default=500, help="calls per contender per round")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="tooldeck-bench-mcp-") as tmp:
            workdir = Path(tmp)
            calls = measure_calls(workdir, args.rounds, args.calls, args.warmup)
            ready = measure_ready(workdir, args.rounds)
    except BenchSetupError as exc:
        print(f"mcp benchmark: {exc}", file=sys.stderr)
        return 2
    report = {
        "ready": ready,
        "calls": calls,
        "targets": {"ready_ratio": READY_TARGET, "call_ratio": CALL_TARGET},
    }
    if args.as_json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


def print_table(report: dict[str, Any]) -> None:
    ready, calls = report["ready"], report["calls"]
    rows = [(f"  ready, {name} alone (s)", f"{v:.2f}", "") for name, v in ready["single_s"].items()]
    rows += [
        ("ready, 4 servers one after another (s)", f"{ready['sequential_s']:.2f}", ""),
        ("ready, 4 servers at once (s)", f"{ready['concurrent_s']:.2f}", ""),
        ("  at once / slowest alone", f"{ready['ratio']:.2f}", _verdict(ready["ratio"], READY_TARGET)),
    ]
    for where, label in (("foreign_loop", "from another loop"), ("deck_loop", "on the deck's loop")):
        c = calls[where]
        rows += [
            (f"call {label}: bare mcp SDK (us)", f"{c['bare_sdk_us']:.0f}", ""),
            (f"call {label}: tooldeck (us)", f"{c['tooldeck_us']:.0f}", ""),
            ("  tooldeck / bare SDK", f"{c['ratio']:.2f}", _verdict(c["ratio"], CALL_TARGET)),
        ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>8}  target")
    for label, value, verdict in rows:
        print(f"{label:<{width}}  {value:>8}  {verdict}")


def _verdict(ratio: float, target: float) -> str:
    return f"<= {target:g}: {'met' if ratio <= target else 'MISSED'}"
