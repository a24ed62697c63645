"""Helpers shared by the commands: loading the deck, printing, exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

from tooldeck.assembly.loadout import Diagnostic, Loadout
from tooldeck.deck import Deck
from tooldeck.errors import ConfigError, ToolsetError

ConfigOption = typer.Option(None, "--config", "-c", help="Config file (default: ./tooldeck.yaml if present).")
JsonOption = typer.Option(False, "--json", help="Machine-readable output.")
PlatformOption = typer.Option(
    None, "--platform", "-p", help="Platform whose toolsets to use (default: config)."
)


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"tooldeck: {message}", err=True)
    raise typer.Exit(code)


def load_deck(config: Path | None) -> Deck:
    """Load the config and sources; a bad config exits 2 with the key path."""
    try:
        return Deck.load(config)
    except ConfigError as exc:
        fail(f"config error: {exc}")


def assemble(deck: Deck, platform: str | None) -> Loadout:
    try:
        return deck.loadout(platform)
    except ToolsetError as exc:
        fail(f"config error: {exc}")


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def warn_diagnostics(diagnostics: list[Diagnostic]) -> None:
    """Warnings go to stderr in machine mode, so stdout stays parseable and nothing vanishes."""
    for d in diagnostics:
        if d.level != "info":
            typer.echo(f"tooldeck: {d.level}: {d}", err=True)


def console() -> Any:
    """A rich console; wide enough for the tables when output is not a terminal."""
    from rich.console import Console

    con = Console(soft_wrap=False)
    if not con.is_terminal:
        con = Console(soft_wrap=False, width=200)
    return con
