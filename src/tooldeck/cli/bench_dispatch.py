"""`tooldeck bench dispatch`: per-call overhead of the execution path vs Hermes and pydantic-ai (issue 3)."""

from __future__ import annotations

import json
import sys

import typer

from tooldeck.cli.bench_cmd import bench_app
from tooldeck.cli.common import JsonOption, fail


@bench_app.command("dispatch")
def bench_dispatch(
    rounds: int = typer.Option(5, "--rounds", min=1, help="Measured rounds (fresh processes each)."),
    calls: int = typer.Option(3000, "--calls", min=1, help="Timed calls per per-call figure."),
    warmup: int = typer.Option(300, "--warmup", min=0, help="Untimed calls before each figure."),
    no_peers: bool = typer.Option(False, "--no-peers", help="Measure tooldeck only."),
    as_json: bool = JsonOption,
) -> None:
    """Trivial sync and async calls through the whole path, and an 8 x 200 ms batch."""
    from tooldeck.bench.dispatch import DispatchBenchError, DispatchOptions, run_bench, table

    opts = DispatchOptions(rounds=rounds, calls=calls, warmup=warmup, peers=not no_peers)

    def progress(message: str) -> None:
        print(f"bench dispatch: {message}", file=sys.stderr, flush=True)

    try:
        report = run_bench(opts, progress=None if as_json else progress)
    except DispatchBenchError as exc:
        fail(str(exc), code=1)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        typer.echo(table(report))
