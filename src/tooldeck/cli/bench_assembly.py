"""`tooldeck bench assembly`: the 300-tool assembly benchmark against Hermes 0.19.0 (issue 2)."""

from __future__ import annotations

from pathlib import Path

import typer

from tooldeck.cli.bench_cmd import bench_app
from tooldeck.cli.common import JsonOption


@bench_app.command("assembly")
def bench_assembly(
    runs: int = typer.Option(5, "--runs", min=1, help="Measured rounds (fresh processes each)."),
    warmup_runs: int = typer.Option(1, "--warmup-runs", min=0, help="Discarded warm-up rounds."),
    shared: Path | None = typer.Option(
        None, "--shared", help="Shared folder with bench/hermes/ (default ../shared, then /work/shared)."
    ),
    no_hermes: bool = typer.Option(False, "--no-hermes", help="Measure tooldeck only."),
    no_builtins: bool = typer.Option(
        False, "--no-builtins", help="Diagnostic: skip discovery of tooldeck's built-in tools."
    ),
    as_json: bool = JsonOption,
) -> None:
    """Cold and warm tool assembly on 300 synthetic tools, tooldeck vs Hermes, in alternation."""
    from tooldeck.bench.assembly import main

    argv = ["--runs", str(runs), "--warmup-runs", str(warmup_runs)]
    argv += ["--shared", str(shared)] if shared is not None else []
    argv += ["--no-hermes"] if no_hermes else []
    argv += ["--no-builtins"] if no_builtins else []
    argv += ["--json"] if as_json else []
    raise typer.Exit(main(argv))
