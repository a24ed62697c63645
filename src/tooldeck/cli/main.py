"""The `tooldeck` command. Each subcommand lives in its own module, imported only when it runs.

`tooldeck --help` lists the commands from the table below without importing any of them; a
command module has `configure(parser)` (its arguments) and `run(args) -> int` (its exit code).
Exit codes: 0 success, 1 the work failed (a tool error, a model error), 2 bad usage or config,
130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import sys
import threading
from typing import NoReturn

from tooldeck.errors import ConfigError, TooldeckError
from tooldeck.tracing.export import configure_cli_exporter

# name -> (module, one line of help). Keep in the order `--help` shows them.
COMMANDS: dict[str, tuple[str, str]] = {
    "tools": ("tooldeck.cli.tools_cmd", "the exposed tools exactly as they would be sent to the model"),
    "explain": (
        "tooldeck.cli.explain_cmd",
        "every candidate tool with its fate: exposed, deferred or hidden, and why",
    ),
    "call": ("tooldeck.cli.call_cmd", "one tool call through the whole execution path"),
    "search": (
        "tooldeck.cli.search_cmd",
        "ranked search over the deferred tools (what tool_search finds), or any --catalog FILE",
    ),
    "run": ("tooldeck.cli.run_cmd", "one agent turn; prints the final answer"),
    "chat": ("tooldeck.cli.chat_cmd", "the agent, interactive"),
    "sessions": ("tooldeck.cli.sessions_cmd", "stored agent sessions: list, show, search"),
    "checkpoints": ("tooldeck.cli.checkpoints_cmd", "what each call changed in the workspace, newest first"),
    "undo": (
        "tooldeck.cli.undo_cmd",
        "put the workspace back as it was before the last call (or a checkpoint)",
    ),
    "config": (
        "tooldeck.cli.config_cmd",
        "the effective configuration, its JSON Schema (--schema) or reference",
    ),
    "serve": ("tooldeck.cli.serve_cmd", "the loadout as an MCP server (stdio or streamable HTTP)"),
    "inspect": (
        "tooldeck.cli.inspect_cmd",
        "a local web page over the loadout: every gate's reason, schemas per dialect, live calls",
    ),
    "mcp": ("tooldeck.cli.mcp_cmd", "MCP servers: `mcp list` shows each one's state, tools and errors"),
    "shell-check": (
        "tooldeck.cli.shell_check_cmd",
        "the safety verdict of shell commands (block, approve, safe)",
    ),
    "batch": ("tooldeck.cli.batch_cmd", "many agent runs from a JSONL file, locally or on Ray; resumable"),
}

DESCRIPTION = "The tool layer of an LLM agent: which tools the model sees, and why; calls; the agent loop."


class CliError(Exception):
    """Ends a command with a message on stderr and an exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, told the terminal width so it does not import shutil to ask
    (argparse builds one at every add_argument; shutil and its compression modules cost ~2 ms)."""

    def __init__(self, prog: str, **kwargs: int) -> None:
        kwargs.setdefault("width", _terminal_columns() - 2)
        super().__init__(prog, **kwargs)


def _terminal_columns() -> int:
    """What shutil.get_terminal_size() reports: $COLUMNS, else the terminal's width, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        stream = sys.__stdout__
        return (os.get_terminal_size(stream.fileno()).columns or 80) if stream is not None else 80
    except (AttributeError, ValueError, OSError):
        return 80


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [
        "usage: tooldeck COMMAND [options]   (tooldeck COMMAND --help for its options)",
        "",
        DESCRIPTION,
        "",
    ]
    lines += ["commands:"] + [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "All commands take --config PATH (default ./tooldeck.yaml if present)."]
    return "\n".join(lines)


_GLOBAL_WITH_VALUE = ("--config", "-c")
_GLOBAL_FLAGS = ("--json", "--verbose", "-v")
_WITH_ACTIONS = frozenset({"mcp", "sessions"})  # commands whose options follow an action word


def _leading_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """Options every command takes, written before the command (`tooldeck --config x.yaml
    tools`): taken off the front, to be given to the command after its own arguments."""
    leading: list[str] = []
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        if arg in _GLOBAL_WITH_VALUE and i + 1 < len(argv):
            leading += argv[i : i + 2]
            i += 2
        elif arg.startswith("--config=") or arg in _GLOBAL_FLAGS:
            leading.append(arg)
            i += 1
        else:
            break
    return leading, argv[i:]


def dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if argv else 2
    if argv[0] == "--version":
        from tooldeck._utils.version import __version__

        print(f"tooldeck {__version__}")
        return 0
    leading, argv = _leading_options(argv)
    if not argv:
        print("tooldeck: which command? (tooldeck --help lists them)", file=sys.stderr)
        return 2
    name, rest = argv[0], argv[1:]
    if name in _WITH_ACTIONS:  # `tooldeck mcp --config x.yaml list`: the action's options
        between, rest = _leading_options(rest)
        leading += between
    rest += leading
    entry = COMMANDS.get(name)
    if entry is None:
        import difflib

        close = difflib.get_close_matches(name, list(COMMANDS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        print(f"tooldeck: unknown command {name!r}{hint} (tooldeck --help lists them)", file=sys.stderr)
        return 2
    module = importlib.import_module(entry[0])
    parser = argparse.ArgumentParser(
        prog=f"tooldeck {name}", description=entry[1], formatter_class=_HelpFormatter
    )
    module.configure(parser)
    args = parser.parse_args(rest)
    from tooldeck.cli import output

    # Stdout carries the command's result (often JSON): whatever tools or imported modules print
    # while it runs goes to stderr, and log records (tracebacks included) to the log file, or to
    # stderr with --verbose.
    with output.command_streams(verbose=bool(getattr(args, "verbose", False))):
        code: int = module.run(args)
    return code


def _dispatch_closing(argv: list[str]) -> int:
    """The command, then the MCP servers it started stopped (those open before it stay): the
    process goes on, and a command leaves nothing running behind it."""
    from tooldeck.core import closing_mcp_sessions

    with closing_mcp_sessions():
        return dispatch(argv)


def run(argv: list[str]) -> int:
    """One command line, in this process: its exit code, a failure said on stderr in one line
    (as the console script says it). The process goes on; `main` is the one that exits."""
    configure_cli_exporter()  # OTLP/HTTP only when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set
    try:
        code = _dispatch_closing(argv)
    except CliError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        code = exc.code
    except TooldeckError as exc:  # boundary: a known kind of failure is one line, never a traceback
        kind = "config error" if isinstance(exc, ConfigError) else type(exc).__name__
        print(f"tooldeck: {kind}: {exc}", file=sys.stderr)
        code = 2 if isinstance(exc, ConfigError) else 1
    except SystemExit as exc:  # argparse's usage errors and --help
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt:
        print("tooldeck: interrupted", file=sys.stderr)
        code = 130
    with contextlib.suppress(BrokenPipeError):  # the reader went away (`| head`): nothing left to say
        sys.stdout.flush()
    sys.stderr.flush()
    return code


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point. Exits promptly even when a hung check or tool thread is still alive."""
    code = run(sys.argv[1:] if argv is None else argv)
    if argv is None:
        # The console script owns the process: leave without tearing the interpreter down
        # (destroying a few hundred modules costs ~15 ms, a tenth of `tooldeck tools`), after
        # the exit handlers (MCP servers closed, logs flushed). This also never waits for a
        # check or tool that never returns, alive in a daemon/worker thread.
        atexit._run_exitfuncs()
        with contextlib.suppress(BrokenPipeError):
            sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if any(t is not threading.main_thread() and t.is_alive() for t in threading.enumerate()):
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main()
