"""`tooldeck bench NAME`: the benchmarks, each registered by its own module on `bench_app`."""

from __future__ import annotations

import typer

from tooldeck.cli.app import app

bench_app = typer.Typer(help="Run a benchmark and print its table (peers measured in the same run).")
app.add_typer(bench_app, name="bench")
