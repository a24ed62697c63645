"""`tooldeck undo [ID] [--force]`: put the workspace back as it was before the last call, or
before checkpoint ID (see `tooldeck checkpoints`); the API is `Deck.undo()`. A file changed
since by someone else is a conflict: exit 2, each file named, nothing changed."""

from __future__ import annotations

import argparse

from tooldeck.cli.checkpoints_cmd import load
from tooldeck.cli.common import add_config, add_json, console, fail, print_json


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "checkpoint",
        nargs="?",
        type=int,
        default=None,
        metavar="ID",
        help="put back the state before this checkpoint, undoing it and every later one (default: the last call)",
    )
    parser.add_argument(
        "--force", action="store_true", help="restore even files changed since by someone else"
    )
    add_config(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    from tooldeck.core import undo_checkpoints
    from tooldeck.errors import CheckpointConflict, CheckpointError

    config = load(args)
    try:
        report = undo_checkpoints(config, args.checkpoint, force=args.force)
    except CheckpointConflict as exc:
        if args.as_json:
            print_json({"error": "conflict", "message": str(exc), "paths": exc.paths})
            return 2
        fail(str(exc), 2)
    except CheckpointError as exc:
        fail(str(exc), 1 if "nothing to undo" in str(exc) else 2)
    if args.as_json:
        print_json(report.to_json())
        return 0
    undone = ", ".join(str(i) for i in report.undone)
    lines = [f"undid checkpoint{'s' if len(report.undone) > 1 else ''} {undone}"]
    lines += [f"  restored {p}" for p in report.restored]
    lines += [f"  removed {p}" for p in report.removed]
    lines += [f"  kept {p} (it holds files the calls did not make)" for p in report.kept]
    lines += [f"  overwrote later changes to {p} (--force)" for p in report.overwritten]
    console().print("\n".join(lines), markup=False, highlight=False)
    return 0
