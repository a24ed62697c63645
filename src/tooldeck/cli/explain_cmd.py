"""`tooldeck explain`: every candidate tool, with the gate that decided its fate and why."""

from __future__ import annotations

import difflib
from pathlib import Path

import typer

from tooldeck.assembly.loadout import Fate
from tooldeck.cli.app import app
from tooldeck.cli.common import (
    ConfigOption,
    JsonOption,
    PlatformOption,
    assemble,
    console,
    fail,
    load_deck,
    print_json,
    warn_diagnostics,
)
from tooldeck.dialects.cli_views import cost_cell, cost_record, print_strict_refusals, render_costs

STATUS_STYLE = {"exposed": "green", "deferred": "yellow", "hidden": "red"}


def fate_record(fate: Fate) -> dict[str, object]:
    t = fate.tool
    return {
        "name": t.name,
        "toolset": t.toolset,
        "source": t.source,
        "status": fate.status,
        "gate": fate.gate,
        "reason": fate.reason,
        "owner": t.owner,
    }


@app.command("explain")
def explain_command(
    names: list[str] = typer.Argument(None, help="Only these tools (default: every candidate)."),
    config: Path | None = ConfigOption,
    platform: str | None = PlatformOption,
    as_json: bool = JsonOption,
    dialect: str = typer.Option(
        "openai", "--dialect", "-d", help="Dialect for token shares and strict mode."
    ),
    strict: bool = typer.Option(False, "--strict", help="Say why a tool cannot be OpenAI-strict."),
) -> None:
    """Explain, tool by tool and gate by gate, why each candidate is exposed, deferred or hidden."""
    deck = load_deck(config)
    loadout = assemble(deck, platform)
    fates = loadout.fates()
    if names:
        known = {f.name for f in fates}
        missing = [n for n in names if n not in known]
        for n in missing:
            close = difflib.get_close_matches(n, sorted(known), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            typer.echo(f"tooldeck: no candidate tool named {n!r}{hint}", err=True)
        fates = [f for f in fates if f.name in set(names)]
        if not fates:
            fail("none of the named tools is a candidate", 1)
    diagnostics = deck.diagnostics(loadout)
    costs = render_costs(
        loadout, dialect, strict or deck.config.dialects.openai.strict, deck.config.model.name
    )
    if as_json:
        warn_diagnostics(diagnostics)
        print_json(
            [
                fate_record(f) | cost_record(costs.get(f.name) if f.status == "exposed" else None)
                for f in fates
            ]
        )
        return
    from rich.table import Table

    con = console()
    table = Table(title=f"Why each tool is (not) visible — platform {loadout.platform}")
    for col in ("name", "toolset", "source", "status", "gate"):
        table.add_column(col, no_wrap=col in ("name", "status"))
    table.add_column("reason", overflow="fold", min_width=30, ratio=1)
    table.add_column(f"tokens ({dialect})", justify="right", no_wrap=True)
    for f in fates:
        style = STATUS_STYLE[f.status]
        table.add_row(
            f.name,
            f.tool.toolset,
            f.tool.source,
            f"[{style}]{f.status}[/]",
            f.gate or "",
            f.reason or "",
            cost_cell(costs.get(f.name) if f.status == "exposed" else None),
        )
    con.print(table)
    print_strict_refusals(con, [costs[f.name] for f in fates if f.status == "exposed" and f.name in costs])
    shown = [d for d in diagnostics if d.level != "info"]
    if shown:
        con.print("[bold yellow]Warnings[/] (strict: true makes these errors):")
        for d in shown:
            con.print(f"  • {d}", markup=False)
