"""`tooldeck checkpoints`: what each call changed in the workspace, newest first (undo it with
`tooldeck undo`; the API is `Deck.checkpoints()`)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from tooldeck.cli.common import add_config, add_json, console, fail, print_json

if TYPE_CHECKING:
    from tooldeck import Config
    from tooldeck.core import Checkpoint

# How many changed paths a row of the listing names before "(+N more)".
SHOWN_PATHS = 4


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", default=None, help="only the checkpoints of this agent session")
    add_config(parser)
    add_json(parser)


def load(args: argparse.Namespace) -> Config:
    from tooldeck import load_config
    from tooldeck.errors import ConfigError

    try:
        return load_config(args.config)
    except ConfigError as exc:
        fail(f"config error: {exc}")


def run(args: argparse.Namespace) -> int:
    from tooldeck.core import checkpoint_store
    from tooldeck.errors import CheckpointError

    config = load(args)
    try:
        found = checkpoint_store(config).checkpoints(session_id=args.session)
    except CheckpointError as exc:
        fail(str(exc), 1)
    if args.as_json:
        print_json([c.to_json() for c in found])
        return 0
    out = console()
    if not found:
        out.print(f"no checkpoints for the workspace {config.workspace}", markup=False, highlight=False)
        return 0
    for checkpoint in found:
        out.print(_row(checkpoint), markup=False, highlight=False)
    return 0


def _row(checkpoint: Checkpoint) -> str:
    counts = checkpoint.counts()
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(checkpoint.time))
    changed = [c.path for c in checkpoint.changes if c.verb != "unchanged"]
    shown = ", ".join(changed[:SHOWN_PATHS]) + (
        f" (+{len(changed) - SHOWN_PATHS} more)" if len(changed) > SHOWN_PATHS else ""
    )
    session = f" session {checkpoint.session_id}" if checkpoint.session_id else ""
    unfinished = "" if checkpoint.finished else " (did not finish)"
    return (
        f"{checkpoint.id:>5}  {when}  {checkpoint.tool}{session}{unfinished}  "
        f"+{counts['created']} ~{counts['modified']} -{counts['deleted']}  {shown}"
    )
