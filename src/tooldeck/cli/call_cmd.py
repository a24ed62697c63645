"""`tooldeck call NAME --args JSON [--yes]`: one call through the full execution path (X, K).

`--args` goes verbatim to the argument parser, so malformed JSON, an unknown tool or invalid
arguments come back as an error envelope with exit 1 - just what a model would read - and
only bad usage of the command itself (no NAME, an unreadable config) exits 2.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import typer

from tooldeck.cli.app import app
from tooldeck.cli.common import ConfigOption, JsonOption, PlatformOption, assemble, load_deck, print_json
from tooldeck.execution.executor import Executor
from tooldeck.execution.policy import Approver, AutoApprover, TerminalApprover
from tooldeck.execution.settings import ExecutionSettings
from tooldeck.execution.types import ToolCall


@app.command("call")
def call_command(
    name: str = typer.Argument(..., help="The tool to call (exactly as the model would name it)."),
    args: str = typer.Option("", "--args", "-a", help="Arguments as JSON, passed verbatim (default: {})."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve the call up front if it needs approval."),
    timeout: float | None = typer.Option(
        None, "--timeout", help="Seconds before the call is stopped (default: config)."
    ),
    config: Path | None = ConfigOption,
    platform: str | None = PlatformOption,
    as_json: bool = JsonOption,
) -> None:
    """Call one tool as a model would, and print its result (exit 1 when it is an error)."""
    if timeout is not None and not timeout > 0:
        raise typer.BadParameter("must be > 0 seconds", param_hint="--timeout")
    deck = load_deck(config)
    loadout = assemble(deck, platform)
    # --timeout bounds this call even when the tool sets its own, longer timeout.
    overrides = {"default_timeout_s": timeout, "timeout_cap_s": timeout} if timeout is not None else {}
    settings = ExecutionSettings.from_config(deck.config, **overrides)
    approver: Approver = AutoApprover() if yes else TerminalApprover()
    home = deck.config.home
    spill_dir = deck.config.resolve_path(home) / "spill" if home else None
    # One spill area for every `tooldeck call`, so a cut result can be paged by a later
    # `tooldeck call read_result --args '{"id": ...}'`.
    executor = Executor(loadout, settings=settings, approver=approver, session_id="cli", spill_dir=spill_dir)
    call_id = f"call_{time.strftime('%Y%m%d%H%M%S')}_{os.getpid()}"
    try:
        [result] = executor.execute_sync([ToolCall(call_id, name, args)])
    except KeyboardInterrupt:
        typer.echo("tooldeck: interrupted; the call was cancelled", err=True)
        raise typer.Exit(130) from None
    if as_json:
        error = result.error.envelope()["error"] if result.error is not None else None
        print_json({"ok": result.ok, "content": result.content, "error": error})
    else:
        typer.echo(result.content)
        if result.error is not None:
            typer.echo(f"tooldeck: {result.error.type}: {result.error.message}", err=True)
    raise typer.Exit(0 if result.ok else 1)
