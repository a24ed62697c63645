"""`tooldeck call NAME --args JSON [--yes]`: one call through the full execution path.

`--args` goes verbatim to the argument parser, so malformed JSON, an unknown tool or invalid
arguments come back as an error envelope with exit 1 - just what a model would read - and only
bad usage of the command itself (no NAME, an unreadable config) exits 2. `--args -` reads the
arguments from stdin and `--args @FILE` from a file, for arguments longer than a command line.
A deferred tool is called directly (naming it is choosing it; each `tooldeck call` is a fresh
session, so a `tool_search` promotion could not carry over); every other gate applies.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

from tooldeck._utils.text import for_terminal
from tooldeck.cli.common import (
    add_config,
    add_json,
    add_platform,
    assemble,
    emit,
    fail,
    load_deck,
    print_json,
    warn_diagnostics,
)

# Cut results of `tooldeck call` stay readable by a later `tooldeck call read_result` this long.
KEEP_CUT_RESULTS_S = 24 * 3600


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the tool to call, exactly as the model would name it")
    parser.add_argument(
        "--args", "-a", default="", help="arguments as JSON, passed verbatim; '-' reads stdin, @FILE a file"
    )
    parser.add_argument(
        "--yes", "-y", action="store_true", help="approve the call up front if it needs approval"
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds before the call is stopped (default: config)"
    )
    add_config(parser)
    add_platform(parser)
    add_json(parser)


def read_arguments(raw: str) -> str:
    """The arguments text: `-` is stdin, `@FILE` a file (a UTF-8 BOM at its start is dropped, as
    for the YAML config), anything else the JSON itself."""
    if raw == "-":
        return sys.stdin.read().removeprefix("\ufeff")
    if not raw.startswith("@"):
        return raw
    name = raw[1:]
    if not name:
        fail("--args @ needs a file name after the @ (e.g. --args @arguments.json)")
    try:
        return Path(name).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read arguments from {name}: {getattr(exc, 'strerror', None) or exc}")


def run(args: argparse.Namespace) -> int:
    from tooldeck.core import Approver, AutoApprover, TerminalApprover

    if args.timeout is not None and not args.timeout > 0:
        fail("--timeout must be > 0 seconds")
    arguments = read_arguments(args.args)
    deck = load_deck(args.config)
    limits = None
    if args.timeout is not None:
        # --timeout bounds this call even when the tool sets its own, longer timeout.
        limits = dataclasses.replace(
            deck.config.execution, default_timeout_s=args.timeout, max_timeout_s=args.timeout
        )
    # An unknown platform or a strict-mode problem: exit 2 here. MCP servers that cannot offer
    # this tool are not waited for.
    loadout = assemble(deck, args.platform, calling=[args.name])
    warn_diagnostics(deck.diagnostics(loadout))
    approver: Approver = AutoApprover() if args.yes else TerminalApprover()
    # One spill area for every `tooldeck call`, so a cut result can be paged by a later
    # `tooldeck call read_result --args '{"id": ...}'`. The person named the tool, so a deferred
    # one is called directly: no later call could use what a `tool_search` here promoted.
    session = deck.session(platform=args.platform, approver=approver, session_id="cli", limits=limits)
    call_id = f"call_{time.strftime('%Y%m%d%H%M%S')}_{os.getpid()}"
    with session:
        result = session.call_sync(args.name, arguments, call_id=call_id)
    session.spill.prune(older_than_s=KEEP_CUT_RESULTS_S)
    if args.as_json:
        from tooldeck.inspect.records import call_record

        print_json(call_record(result))
    else:
        emit(for_terminal(result.content))
        if result.error is not None:
            print(f"tooldeck: {result.error.type}: {for_terminal(result.error.message)}", file=sys.stderr)
    return 0 if result.ok else 1
