"""`tooldeck chat`: the agent, interactive. Tool calls and results show as they happen; tools that
need approval are asked about inline; a clarify question is answered at the next prompt.

Commands at the prompt: /exit (or /quit, Ctrl-D), /new (a fresh session), /session, /help.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from tooldeck.cli.app import app
from tooldeck.cli.common import ConfigOption, PlatformOption
from tooldeck.cli.run_cmd import (
    BaseUrlOption,
    MaxIterOption,
    ModelOption,
    ProviderOption,
    ResumeOption,
    TranscriptOption,
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


@app.command("chat")
def chat_command(
    model: str | None = ModelOption,
    base_url: str | None = BaseUrlOption,
    provider: str | None = ProviderOption,
    resume: str | None = ResumeOption,
    transcript: Path | None = TranscriptOption,
    max_iterations: int | None = MaxIterOption,
    config: Path | None = ConfigOption,
    platform: str | None = PlatformOption,
) -> None:
    """Chat with the agent interactively."""
    from rich.console import Console

    from tooldeck.agent.console import ChatApprover, LineReader, StepPrinter

    console = Console(highlight=False, soft_wrap=True)
    reader = LineReader(console)
    printer = StepPrinter(console)
    agent = build_agent(
        config,
        platform=platform,
        model=model,
        base_url=base_url,
        provider=provider,
        max_iterations=max_iterations,
        events=printer,
        approver=ChatApprover(reader),
    )
    convo = open_conversation(agent, resume)
    code = run_async(_repl(agent, convo, reader, console, transcript))
    raise typer.Exit(code)


async def _repl(
    agent: Agent, convo: Conversation, reader: LineReader, console: Any, transcript: Path | None
) -> int:
    from rich.markup import escape

    from tooldeck.agent.console import StepPrinter
    from tooldeck.errors import ModelError

    console.print(
        f"[dim]tooldeck chat — model {escape(agent.model.model_name)}, session {convo.session_id}. /help[/]"
    )
    if convo.pending:
        console.print(f"[bold yellow]?[/] {escape(str(convo.pending.get('question', '')))}")
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
                console.print(f"[bold red]model error:[/] {escape(str(exc))}")
                code = 1
                continue
            if result.status == "interrupted":
                console.print(f"[bold yellow]?[/] {escape(result.text)}")
                for choice in (result.interrupt or {}).get("choices") or []:
                    console.print(f"  - {escape(str(choice))}")
            elif streamer is None or not streamer.streamed_any:
                console.print(f"[bold]agent>[/] {escape(result.text)}")
    finally:
        if transcript is not None:
            write_transcript(transcript, convo, None, None)
        await agent.aclose()
    return code
