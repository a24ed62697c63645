"""`tooldeck chat`: the agent, interactive. Tool calls and results show as they happen; tools that
need approval are asked about inline; a clarify question is answered at the next prompt.

Commands at the prompt: /exit (or /quit, Ctrl-D), /new (a fresh session), /session, /help, and
/approve CALL_ID [SCOPE] or /deny CALL_ID [REASON] for calls a turn left waiting for approval
(`[l]ater` at the prompt, with `approvals.unattended: interrupt`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck._utils.text import for_terminal
from tooldeck.cli.run_cmd import (
    add_agent_options,
    build_agent,
    open_conversation,
    run_async,
    write_transcript,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rich.console import Console

    from tooldeck.agent.console import LineReader
    from tooldeck.agent.interrupts import ApprovalDecision, Scope
    from tooldeck.agent.loop import Conversation
    from tooldeck.agent.runtime import Agent

HELP = (
    "/exit  leave   /new  start a new session   /session  show the session id   /help  this text\n"
    "/approve [CALL_ID] [once|session|always]   /deny [CALL_ID] [REASON]  decide a call waiting for approval"
)


def configure(parser: argparse.ArgumentParser) -> None:
    add_agent_options(parser)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tooldeck.agent.console import ChatApprover, LineReader, StepPrinter
    from tooldeck.cli.run_cmd import check_writable

    check_writable(args.transcript)
    from tooldeck.cli.output import real_stdout

    console = Console(file=real_stdout(), highlight=False, soft_wrap=True)
    reader = LineReader(console)
    printer = StepPrinter(console)
    agent = build_agent(args, events=printer, approver=ChatApprover(reader))
    convo = open_conversation(agent, args.resume)
    return run_async(
        _repl(agent, convo, reader, console, args.transcript), deck=agent.deck, session_id=convo.session_id
    )


async def _repl(
    agent: Agent, convo: Conversation, reader: LineReader, console: Any, transcript: Path | None
) -> int:

    from tooldeck.agent.console import StepPrinter
    from tooldeck.errors import DecisionError, ModelError

    console.print(
        f"[dim]tooldeck chat — model {_shown(agent.model.model_name)}, session {convo.session_id}. /help[/]"
    )
    if convo.pending:
        _show_waiting(console, convo.pending)
    code = 0
    try:
        while True:
            line = await reader.read("[bold]you>[/] ")
            if line is None or line.strip() in ("/exit", "/quit"):
                break
            text = line.strip()
            if not text:
                continue
            if text == "/help":
                console.print(HELP)
                continue
            if text == "/session":
                console.print(convo.session_id)
                continue
            if text == "/new":
                convo = agent.new_conversation()
                console.print(f"[dim]new session {convo.session_id}[/]")
                continue
            streamer = agent.events if isinstance(agent.events, StepPrinter) else None
            if streamer is not None:
                streamer.streamed_any = False
            try:
                decision = _decision(text, convo.pending)
                if decision is not None:
                    result = await agent.resume(convo, {decision[0]: decision[1]})
                else:
                    result = await agent.run(convo, text)
            except ModelError as exc:
                console.print(f"[bold red]model error:[/] {_shown(str(exc))}")
                code = 1
                continue
            except DecisionError as exc:
                console.print(f"[bold red]{_shown(str(exc))}[/]")
                continue
            if result.pending:
                _show_waiting(console, result.interrupt or {})
            elif result.status == "interrupted":
                console.print(f"[bold yellow]?[/] {_shown(result.text)}")
                for choice in (result.interrupt or {}).get("choices") or []:
                    console.print(f"  - {_shown(str(choice))}")
            elif streamer is None or not streamer.streamed_any:
                console.print(f"[bold]agent>[/] {_shown(result.text)}")
    finally:
        if transcript is not None:
            write_transcript(transcript, convo, None, None)
        await agent.aclose()
    return code


def _decision(text: str, pending: Mapping[str, Any] | None) -> tuple[str, ApprovalDecision] | None:
    """`/approve CALL_ID [SCOPE]` or `/deny CALL_ID [REASON]` typed in the chat, else None; the
    id may be left out while only one call waits."""
    from tooldeck.agent.interrupts import ApprovalDecision

    command, _, rest = text.partition(" ")
    call_id, _, extra = rest.strip().partition(" ")
    waiting = [str(p.get("call_id")) for p in (pending or {}).get("pending") or ()]
    bare = not call_id or call_id in ("once", "session", "always")
    if command in ("/approve", "/deny") and bare and len(waiting) == 1:
        call_id, extra = waiting[0], rest
    if command == "/approve" and call_id:
        scopes: dict[str, Scope] = {"session": "session", "always": "always"}
        return call_id, ApprovalDecision.approve(scopes.get(extra.strip(), "once"), by="chat")
    if command == "/deny" and call_id:
        return call_id, ApprovalDecision.deny(extra.strip(), by="chat")
    return None


def _show_waiting(console: Console, interrupt: Mapping[str, Any]) -> None:
    """A clarify question, or the calls waiting for approval and how to decide them."""
    if interrupt.get("kind") != "approval":
        console.print(f"[bold yellow]?[/] {_shown(str(interrupt.get('question', '')))}")
        return
    for item in interrupt.get("pending") or ():
        console.print(
            f"[bold yellow]waiting for approval:[/] {_shown(str(item['call_id']))} {_shown(str(item['tool']))}"
        )
        console.print(f"  {_shown(str(item['reason']))}")
    console.print("[dim]decide with /approve CALL_ID [session|always] or /deny CALL_ID [REASON][/]")


def _shown(text: str) -> str:
    """Text for the rich console: control sequences made visible, markup escaped."""
    from rich.markup import escape

    shown: str = escape(for_terminal(text))
    return shown
