"""`python -m benchmarks mcp`: MCP servers - time to a ready loadout, and the cost of a call.

Ready time: four real stdio servers (mcp-server-time, mcp-server-git, server-everything,
server-filesystem). Each round builds a deck over each server alone (the slowest of these is
the floor) and a deck over all four at once (tooldeck connects them concurrently); connecting
them one after another costs the sum of the round's single starts. Target: all four at once
within 1.2 x the slowest single server.

That target ignores the CPU: the servers' start-ups are mostly CPU-bound (two Python servers
importing, two node servers), and four of them at once cannot finish before the machine has
done their work, whatever the client does. So each single start also measures the CPU time the
server's processes used until it was ready (utime + stime from /proc, the server and whatever it
started; elsewhere the usage of reaped children from deck start to close), and the table shows
the CPU floor, max(slowest alone, sum of the start-up CPU / cores), and "at once / CPU floor": how
much of the time at once is the client's doing. The floor leaves out tooldeck's own CPU (it only
gets stricter for that).

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
import resource
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
    return ready_and_cpu(workdir, chosen)[0]


def ready_and_cpu(workdir: Path, chosen: dict[str, dict[str, Any]]) -> tuple[float, float]:
    """`ready_time`, and the CPU seconds the servers' processes had used by then."""
    from tooldeck import Deck, parse_config

    config = parse_config(
        {"mcp_servers": chosen, "home": str(workdir / "home"), "plugins": {"enabled": False}},
        base_dir=str(workdir),
    )
    reaped = _reaped_cpu()
    started = time.perf_counter()
    deck = Deck(config, builtins=False)
    loadout = deck.loadout()
    elapsed = time.perf_counter() - started
    cpu = _descendants_cpu()
    deck.close()  # it waits for its children, so their usage is in the reaped total now
    if cpu is None:
        cpu = _reaped_cpu() - reaped
    states = [s for s in deck.diagnostics() if s.level == "error"]
    if states or len(loadout.exposed) < len(chosen):
        raise BenchSetupError(f"servers did not all get ready: {'; '.join(map(str, states))}")
    return elapsed, cpu


def _reaped_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _descendants_cpu() -> float | None:
    """CPU seconds of this process's living descendants (with the children they reaped), from
    /proc; None where there is no /proc."""
    me = os.getpid()
    if not Path(f"/proc/{me}/task").is_dir():
        return None
    ticks, pending = 0, [me]
    while pending:
        pid = pending.pop()
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
            if pid != me:
                # utime, stime, cutime, cstime: fields 14-17, after the command in parentheses.
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                ticks += sum(int(f) for f in fields[11:15])
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
    return ticks / os.sysconf("SC_CLK_TCK")


def measure_ready(workdir: Path, rounds: int) -> dict[str, Any]:
    every = servers(workdir)
    singles: dict[str, list[float]] = {name: [] for name in every}
    cpus: dict[str, list[float]] = {name: [] for name in every}
    together: list[float] = []
    in_turn: list[float] = []
    for _ in range(rounds):
        for name, entry in every.items():
            elapsed, used = ready_and_cpu(workdir, {name: entry})
            singles[name].append(elapsed)
            cpus[name].append(used)
        # One after another is the sum of this round's starts alone: each was just made on its own.
        in_turn.append(sum(singles[name][-1] for name in every))
        together.append(ready_time(workdir, every))
    single = {name: statistics.median(v) for name, v in singles.items()}
    slowest = max(single.values())
    cpu = {name: statistics.median(v) for name, v in cpus.items()}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    floor = max(slowest, sum(cpu.values()) / cores)
    return {
        "single_s": single,
        "slowest_single_s": slowest,
        "concurrent_s": statistics.median(together),
        "sequential_s": statistics.median(in_turn),
        "ratio": statistics.median(together) / slowest,
        "start_cpu_s": cpu,
        "cores": cores,
        "cpu_floor_s": floor,
        "ratio_to_floor": statistics.median(together) / floor,
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
    from tooldeck import Deck, parse_config

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

    from tooldeck._core.execution.executor import Executor
    from tooldeck._core.execution.types import ToolCall

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
    if "cpu_floor_s" in ready:
        rows += [(f"  start-up CPU, {name} (s)", f"{v:.2f}", "") for name, v in ready["start_cpu_s"].items()]
        rows += [
            (
                f"CPU floor: max(slowest alone, CPU / {ready['cores']} cores) (s)",
                f"{ready['cpu_floor_s']:.2f}",
                "",
            ),
            ("  at once / CPU floor", f"{ready['ratio_to_floor']:.2f}", "the client's share"),
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
