"""`tooldeck run --resume ID --approve/--deny/--edit`: decisions on the calls a turn waits for.

A turn stopped at approval (`approvals.unattended: interrupt`) is stored with its pending calls;
any later `tooldeck run --resume` decides them. Bad usage of the options (an edit without its
arguments, arguments that are not a JSON object, a call decided twice in one command) exits 2
before anything is loaded; a decision for a call that is not pending exits 2 with nothing run.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from tooldeck._utils.text import for_terminal
from tooldeck.cli.common import emit, fail

if TYPE_CHECKING:
    from tooldeck.agent.interrupts import ApprovalDecision
    from tooldeck.agent.loop import Conversation, TurnResult


def add_decision_options(parser: argparse.ArgumentParser, metavar: str, when: str) -> None:
    """Decisions on the calls a stored turn waits for, each naming its call as `metavar`."""
    group = parser.add_argument_group(f"decisions on pending approvals ({when})")
    group.add_argument("--approve", action="append", default=[], metavar=metavar, help="run this call")
    group.add_argument(
        "--scope",
        choices=("once", "session", "always"),
        default="once",
        help="how long an --approve lasts for the same command (default once)",
    )
    group.add_argument("--deny", action="append", default=[], metavar=metavar, help="refuse this call")
    group.add_argument("--reason", default="", help="why (--deny): the model reads it")
    group.add_argument(
        "--edit", action="append", default=[], metavar=metavar, help="run this call with --args instead"
    )
    group.add_argument(
        "--args", action="append", default=[], metavar="JSON", help="the arguments of an --edit (in order)"
    )


def decisions_of(args: argparse.Namespace) -> dict[str, ApprovalDecision]:
    """The decisions `tooldeck run`'s options give, by call id (empty when none is given)."""
    decisions = given_decisions(args)
    if not decisions:
        return {}
    if args.resume is None:
        fail("--approve, --deny and --edit decide a stored turn's pending calls: give --resume ID")
    if args.prompt is not None:
        fail("a turn waiting for approval takes decisions, not a new message: leave out PROMPT")
    return decisions


def given_decisions(args: argparse.Namespace) -> dict[str, ApprovalDecision]:
    """The decisions the options give, by the call each names (empty when none is given)."""
    from tooldeck.agent.interrupts import ApprovalDecision

    if len(args.edit) != len(args.args):
        fail(f"each --edit needs one --args JSON ({len(args.edit)} --edit, {len(args.args)} --args)")
    given = [*args.approve, *args.deny, *args.edit]
    twice = sorted({c for c in given if given.count(c) > 1})
    if twice:
        fail(f"call {', '.join(twice)} is decided more than once in this command")
    decisions = {c: ApprovalDecision.approve(args.scope, by="cli") for c in args.approve}
    decisions.update({c: ApprovalDecision.deny(args.reason, by="cli") for c in args.deny})
    for call_id, text in zip(args.edit, args.args, strict=True):
        decisions[call_id] = ApprovalDecision.edit(_object(call_id, text), by="cli")
    return decisions


def _object(call_id: str, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        fail(f"--args of --edit {call_id} is not valid JSON: {exc}")
    if not isinstance(value, dict):
        fail(f"--args of --edit {call_id} must be a JSON object, got {type(value).__name__}")
    return value


def waiting_note(
    convo: Conversation, decisions: dict[str, ApprovalDecision], prompt: str | None
) -> str | None:
    """Why the command cannot go on as asked (None: it can): a turn waiting for approval given
    a new message or nothing, or decisions for a session that waits for none."""
    from tooldeck.agent.interrupts import HeldBatch

    held = HeldBatch.load(convo.pending)
    sid = convo.session_id
    if held is None:
        return f"session {sid} is not waiting for an approval; nothing was run" if decisions else None
    if decisions:
        return None
    return (
        f"session {sid} is waiting for approval of: {held.describe()}; decide with tooldeck run --resume "
        f"{sid} --approve CALL_ID (or --deny CALL_ID, or --edit CALL_ID --args JSON)"
    )


def print_pending(result: TurnResult, as_json: bool) -> None:
    """The calls a turn stopped at, and how to decide them."""
    sid = result.session_id
    if not as_json:
        for item in result.pending:
            args = json.dumps(item.get("arguments"), ensure_ascii=False)
            emit(for_terminal(f"awaiting approval: {item.get('call_id')} {item.get('tool')} {args}"))
            emit(for_terminal(f"  why: {item.get('reason')}"))
    print(
        f"tooldeck: the turn waits for approval; decide with: tooldeck run --resume {sid} --approve CALL_ID "
        "(or --deny CALL_ID --reason TEXT, or --edit CALL_ID --args JSON)",
        file=sys.stderr,
    )
