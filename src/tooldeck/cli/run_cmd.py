"""`tooldeck run PROMPT`: one agent turn; prints the final answer.

Exit codes: 0 the turn ended with an answer (or a clarify question, or calls waiting for
approval, for `--resume`); 1 the turn ended without one (the model call failed, the iteration
budget ran out, the reply was empty); 2 bad usage or config (including no model endpoint
configured, and a decision for a call that is not pending: nothing runs); 130 interrupted (the
session id is printed, and the session can be resumed).

`--resume ID --approve CALL_ID [--scope once|session|always]`, `--deny CALL_ID [--reason TEXT]`
and `--edit CALL_ID --args JSON` decide the calls a turn stopped at (`approvals.unattended:
interrupt`); each option may be repeated, and every pending call may be decided at once.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._utils.text import for_terminal, json_text
from tooldeck.cli.common import (
    add_config,
    add_json,
    add_model_options,
    add_platform,
    emit,
    fail,
    load_deck,
    print_json,
)
from tooldeck.cli.decisions import add_decision_options
from tooldeck.cli.main import CliError

if TYPE_CHECKING:
    from tooldeck.agent.events import EventSink
    from tooldeck.agent.interrupts import ApprovalDecision
    from tooldeck.agent.loop import Conversation, TurnResult
    from tooldeck.agent.runtime import Agent, LoadoutSource
    from tooldeck.core import Approver

T = TypeVar("T")


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """The options `run`, `chat` and `batch` share: the model, the session, the budget."""
    add_model_options(parser)
    parser.add_argument("--resume", default=None, help="continue a stored session (id or unique prefix)")
    parser.add_argument(
        "--transcript", type=Path, default=None, help="write the session's messages to this JSON file"
    )
    parser.add_argument(
        "--max-iterations", type=int, default=None, help="tool iterations per turn (default 90)"
    )
    add_config(parser)
    add_platform(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "prompt",
        nargs="?",
        default=None,
        help="the user's message ('-' reads stdin; with --resume: the answer)",
    )
    add_agent_options(parser)
    parser.add_argument("--yes", "-y", action="store_true", help="approve tools that need approval")
    parser.add_argument("--verbose", "-v", action="store_true", help="show each step on stderr")
    add_json(parser)
    add_decision_options(parser, "CALL_ID", "with --resume ID")


def build_agent(args: argparse.Namespace, *, events: EventSink | None, approver: Approver | None) -> Agent:
    """The agent for a command; config problems and a missing model endpoint exit 2."""
    from tooldeck.agent.models.factory import make_model, resolve_model_settings
    from tooldeck.errors import ConfigError, ModelNotConfigured, SessionError, ToolsetError

    if args.max_iterations is not None and args.max_iterations < 1:
        fail("--max-iterations must be >= 1")
    deck = load_deck(args.config)
    try:
        deck.loadout(
            args.platform
        )  # an unknown platform or a strict-mode problem: say so before anything runs
        settings = resolve_model_settings(
            deck.config.model,
            model=args.model,
            base_url=args.base_url,
            provider=args.provider,
            strict_tools=deck.config.dialects.openai.strict,
            reasoning_effort=args.reasoning,
            reasoning_budget=args.reasoning_budget,
        )
        return deck.agent(
            make_model(settings),
            platform=args.platform,
            events=events,
            approver=approver,
            max_iterations=args.max_iterations,
        )
    except (ConfigError, ToolsetError, SessionError) as exc:
        kind = "session error" if isinstance(exc, SessionError) else "config error"
        fail(str(exc) if isinstance(exc, ModelNotConfigured) else f"{kind}: {exc}")


def open_conversation(agent: Agent, resume: str | None) -> Conversation:
    from tooldeck.errors import SessionError

    if resume is None:
        return agent.new_conversation()
    try:
        return agent.resume(resume)
    except SessionError as exc:
        fail(f"session error: {exc}")


def check_writable(path: Path | None) -> None:
    """Fail before any model call when the transcript could not be written."""
    if path is None:
        return
    if path.is_dir():
        fail(f"--transcript {path} is a folder; give a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        fail(f"--transcript {path}: folder {parent} does not exist")
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        fail(f"cannot write transcript {path}: {exc.strerror or exc}")


def write_transcript(path: Path, convo: Conversation, result: TurnResult | None, error: str | None) -> None:
    data: dict[str, Any] = {
        "session_id": convo.session_id,
        "system": convo.system,
        "messages": [m.to_dict() for m in convo.messages],
        "state": convo.state.to_json(),
        "status": result.status if result is not None else ("error" if error else "open"),
    }
    if error is not None:
        data["error"] = error
    try:
        path.write_text(json_text(data) + "\n", encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write transcript {path}: {exc.strerror or exc}", 1)


def result_json(result: TurnResult, convo: Conversation) -> dict[str, Any]:
    return {
        "status": result.status,
        "text": result.text,
        "question": result.question,
        "interrupt": dict(result.interrupt) if result.interrupt is not None else None,
        "session_id": result.session_id,
        "iterations": result.iterations,
        "usage": result.usage.to_dict(),
        "artifacts": list(convo.state.artifacts),
        "todo": [i.to_json() for i in convo.state.todo],
    }


def run_async(coro: Coroutine[Any, Any, T], *, deck: LoadoutSource, session_id: str | None = None) -> T:
    """Run the command's coroutine; Ctrl-C ends it with exit code 130 and the session to resume.

    With MCP servers it runs on the deck's loop, where their sessions live (no thread hand-off
    per MCP call); otherwise on a loop of its own.
    """
    from tooldeck import Deck

    try:
        if isinstance(deck, Deck) and deck.config.mcp_servers:
            return deck.run(coro)
        return asyncio.run(coro)
    except KeyboardInterrupt:
        where = f"; resume with: tooldeck run --resume {session_id}" if session_id else ""
        raise CliError(f"interrupted{where}", 130) from None


def read_prompt(prompt: str | None) -> str | None:
    if prompt != "-":
        return prompt
    text = sys.stdin.read().strip()
    if not text:
        fail("PROMPT '-' read an empty message from stdin")
    return text


def run(args: argparse.Namespace) -> int:
    from tooldeck.cli.decisions import decisions_of, waiting_note
    from tooldeck.core import AutoApprover, TerminalApprover

    if args.prompt is None and args.resume is None:
        fail("missing PROMPT (the user's message; '-' reads it from stdin)")
    decisions = decisions_of(args)
    prompt = read_prompt(args.prompt)
    check_writable(args.transcript)
    events = None
    if args.verbose:
        from tooldeck.agent.console import StepPrinter, stderr_console

        events = StepPrinter(stderr_console(), stream_text=False)
    # On a terminal the user is asked; without one the answer is no (fail closed).
    agent = build_agent(args, events=events, approver=AutoApprover() if args.yes else TerminalApprover())
    convo = open_conversation(agent, args.resume)
    waiting = waiting_note(convo, decisions, prompt)
    if decisions:
        turn = _decide(agent, convo, decisions)
        result, error = run_async(turn, deck=agent.deck, session_id=convo.session_id)
        if args.transcript is not None:
            write_transcript(args.transcript, convo, result, error)
        if result is None:
            fail(f"{error} (session {convo.session_id})", 1 if error and error.startswith("model") else 2)
        return _report(result, convo, args.as_json)
    if waiting:
        fail(waiting)
    unfinished = bool(convo.messages) and convo.messages[-1].role in ("user", "tool") and not convo.pending
    if prompt is None and not unfinished:
        # Without a new message only an unfinished turn (a model error, a crash) can be continued.
        waiting = (
            f" is waiting for an answer to: {convo.pending.get('question')}" if convo.pending else " ended"
        )
        fail(f"session {convo.session_id}{waiting}; pass the next message as PROMPT")
    result, error = run_async(_turn(agent, convo, prompt), deck=agent.deck, session_id=convo.session_id)
    if args.transcript is not None:
        write_transcript(args.transcript, convo, result, error)
    if result is None:
        fail(f"model error: {error} (session {convo.session_id})", 1)
    return _report(result, convo, args.as_json)


async def _turn(
    agent: Agent, convo: Conversation, prompt: str | None
) -> tuple[TurnResult | None, str | None]:
    from tooldeck.errors import ModelError

    try:
        return await agent.run(convo, prompt), None
    except ModelError as exc:
        return None, str(exc)
    finally:
        await agent.aclose()


async def _decide(
    agent: Agent, convo: Conversation, decisions: Mapping[str, ApprovalDecision]
) -> tuple[TurnResult | None, str | None]:
    from tooldeck.errors import DecisionError, ModelError

    try:
        return await agent.resume(convo, decisions), None
    except DecisionError as exc:
        return None, f"decision refused, nothing was run: {exc}"
    except ModelError as exc:
        return None, f"model error: {exc}"
    finally:
        await agent.aclose()


def _report(result: TurnResult, convo: Conversation, as_json: bool) -> int:
    answered = result.status == "interrupted" or (result.status == "done" and result.text.strip())
    if as_json:
        print_json(result_json(result, convo))
    elif result.text:
        emit(for_terminal(result.text))
    if result.pending:
        from tooldeck.cli.decisions import print_pending

        print_pending(result, as_json)
    elif result.status == "interrupted":
        choices = (result.interrupt or {}).get("choices")
        if choices and not as_json:
            emit("choices: " + " | ".join(for_terminal(str(c)) for c in choices))
        print(
            f'tooldeck: the agent is waiting for your answer: tooldeck run --resume {result.session_id} "ANSWER"',
            file=sys.stderr,
        )
    elif result.status == "budget_exhausted":
        print(f"tooldeck: the iteration budget ran out after {result.iterations} iterations", file=sys.stderr)
    elif not answered:
        print("tooldeck: the model ended the turn without an answer (an empty reply)", file=sys.stderr)
    print(f"tooldeck: session {result.session_id}", file=sys.stderr)
    return 0 if answered else 1
