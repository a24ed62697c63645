"""`tooldeck tools`: the exposed tools exactly as they would be sent to the model."""

from __future__ import annotations

from pathlib import Path

import typer

from tooldeck.cli.app import app
from tooldeck.cli.common import (
    ConfigOption,
    JsonOption,
    PlatformOption,
    assemble,
    console,
    load_deck,
    print_json,
    warn_diagnostics,
)
from tooldeck.dialects import render_loadout
from tooldeck.dialects.cli_views import print_token_table

DIALECTS = ("openai", "responses", "anthropic", "gemini")


@app.command("tools")
def tools_command(
    config: Path | None = ConfigOption,
    platform: str | None = PlatformOption,
    dialect: str = typer.Option("openai", "--dialect", "-d", help="openai | responses | anthropic | gemini"),
    as_json: bool = JsonOption,
    strict: bool = typer.Option(
        False, "--strict", help="OpenAI strict mode (or config dialects.openai.strict)."
    ),
    tokens: bool = typer.Option(False, "--tokens", help="Token cost of the exposed tools in each dialect."),
) -> None:
    """Show the tools the model would be sent, in a provider's dialect."""
    if dialect not in DIALECTS:
        raise typer.BadParameter(f"must be one of {', '.join(DIALECTS)}", param_hint="--dialect")
    deck = load_deck(config)
    loadout = assemble(deck, platform)
    strict = strict or deck.config.dialects.openai.strict
    if tokens:
        print_token_table(loadout, strict=strict, profile=deck.config.model.name, as_json=as_json)
        return
    rendered = render_loadout(loadout, dialect, strict=strict, profile=deck.config.model.name)
    if as_json:
        warn_diagnostics(deck.diagnostics(loadout))
        print_json(rendered)
        return
    from rich.table import Table

    con = console()
    table = Table(title=f"Exposed tools — platform {loadout.platform}, dialect {dialect}")
    table.add_column("name", style="bold")
    table.add_column("toolset")
    table.add_column("parameters")
    table.add_column("description", overflow="fold")
    for t in loadout.exposed:
        params = ", ".join(t.parameters.get("properties", {})) or "—"
        summary = loadout.description(t.name).splitlines()[0] if loadout.description(t.name) else ""
        table.add_row(t.name, t.toolset, params, summary)
    con.print(table)
    if loadout.deferred:
        con.print(
            f"Deferred behind tool_search ({len(loadout.deferred)}): {', '.join(loadout.deferred_names)}"
        )
    hidden = len(loadout.hidden)
    con.print(
        f"{len(loadout.exposed)} exposed, {len(loadout.deferred)} deferred, {hidden} hidden "
        "(run `tooldeck explain` for why)."
    )
