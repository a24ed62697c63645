"""The `tooldeck` command. Each command lives in its own module and registers itself on `app`."""

from __future__ import annotations

import os
import sys
import threading

import typer

app = typer.Typer(
    name="tooldeck",
    help="The tool layer of an LLM agent: which tools the model sees, and why; calls; the agent loop.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Command modules register on `app` when imported; keep this list in one place.
from tooldeck.cli import (  # noqa: E402, F401
    call_cmd,
    chat_cmd,
    explain_cmd,
    run_cmd,
    sessions_cmd,
    tools_cmd,
)


def main() -> None:
    """Console entry point. Exits promptly even when a hung check or tool thread is still alive."""
    code = 0
    try:
        # Without standalone mode click returns the exit code of `typer.Exit` instead of exiting.
        result = app(standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except typer.Exit as exc:
        code = exc.exit_code
    except typer.Abort:
        code = 130
    except typer.TyperException as exc:  # click's usage errors (typer vendors click)
        show = getattr(exc, "show", None)
        if show is None:
            raise
        show()
        code = int(getattr(exc, "exit_code", 2))
    sys.stdout.flush()
    sys.stderr.flush()
    # A check or tool that never returns lives on in a daemon/worker thread; never wait for it.
    if any(t is not threading.main_thread() and t.is_alive() for t in threading.enumerate()):
        os._exit(code)
    sys.exit(code)
