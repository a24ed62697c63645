"""`tooldeck chat`: the agent, interactive. Tool calls and results show as they happen; tools that
need approval are asked about inline; a clarify question is answered at the next prompt.

Commands at the prompt: /exit (or /quit, Ctrl-D), /new (a fresh session), /session, /help.
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
    from tooldeck.agent.console import LineReader
    from tooldeck.agent.loop import Conversation
    from tooldeck.agent.runtime import Agent

HELP = "/exit  leave   /new  start a new session   /session  show the session id   /help  this text"


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
    from tooldeck.errors import ModelError

    console.print(
        f"[dim]tooldeck chat — model {_shown(agent.model.model_name)}, session {convo.session_id}. /help[/]"
    )
    if convo.pending:
        console.print(f"[bold yellow]?[/] {_shown(str(convo.pending.get('question', '')))}")
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
                result = await agent.run(convo, text)
            except ModelError as exc:
                console.print(f"[bold red]model error:[/] {_shown(str(exc))}")
                code = 1
                continue
            if result.status == "interrupted":
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


def _shown(text: str) -> str:
    """Text for the rich console: control sequences made visible, markup escaped."""
    from rich.markup import escape

    shown: str = escape(for_terminal(text))
    return shown
