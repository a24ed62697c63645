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

DIALECTS = ("openai", "responses", "anthropic", "gemini")


@app.command("tools")
def tools_command(
    config: Path | None = ConfigOption,
    platform: str | None = PlatformOption,
    dialect: str = typer.Option("openai", "--dialect", "-d", help="openai | responses | anthropic | gemini"),
    as_json: bool = JsonOption,
) -> None:
    """Show the tools the model would be sent, in a provider's dialect."""
    if dialect not in DIALECTS:
        raise typer.BadParameter(f"must be one of {', '.join(DIALECTS)}", param_hint="--dialect")
    deck = load_deck(config)
    loadout = assemble(deck, platform)
    rendered = render_loadout(loadout, dialect, strict=deck.config.dialects.openai.strict)
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
