"""`tooldeck bench dialects`: schema rendering in four dialects, tooldeck vs Hermes 0.19.0."""

from __future__ import annotations

import json

import typer

from tooldeck.bench.dialects import find_schemas, format_table, run_dialects_bench
from tooldeck.cli.bench_cmd import bench_app
from tooldeck.errors import ConfigError


@bench_app.command("dialects")
def bench_dialects(
    rounds: int = typer.Option(5, "--rounds", min=1, help="Timed rounds per figure (median reported)."),
    schemas: str | None = typer.Option(
        None, "--schemas", help="LiveMCP schema file (default: ../shared/data/...)."
    ),
    hermes: bool = typer.Option(True, "--hermes/--no-hermes", help="Measure Hermes 0.19.0 in the same run."),
    hermes_py: str | None = typer.Option(
        None, "--hermes-python", help="Python of a Hermes venv ($HERMES_PY)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Render the 527 LiveMCP schemas for OpenAI Chat, Responses, Anthropic and Gemini; compare with Hermes."""
    try:
        result = run_dialects_bench(find_schemas(schemas), rounds=rounds, hermes=hermes, hermes_py=hermes_py)
    except ConfigError as exc:
        typer.echo(f"tooldeck: {exc}", err=True)
        raise typer.Exit(2) from exc
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        typer.echo(format_table(result))
    if result.hermes_error:
        raise typer.Exit(1)
