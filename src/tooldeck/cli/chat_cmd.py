"""`tooldeck chat`: the agent, interactive. Tool calls and results show as they happen; tools that
need approval are asked about inline; a clarify question is answered at the next prompt.

Commands at the prompt: /exit (or /quit, Ctrl-D), /new (a fresh session), /session, /help.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import typer

from tooldeck.agent.events import (
    BudgetExhausted,
    Event,
    ModelReplied,
    RetryScheduled,
    StateUpdated,
    TextDelta,
    ToolCallsStarted,
    ToolResultReady,
    TurnInterrupted,
)
from tooldeck.agent.loop import Conversation
from tooldeck.agent.messages import arguments_text
from tooldeck.agent.models.base import ModelError
from tooldeck.agent.runtime import Agent
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
from tooldeck.execution.policy import ApprovalAnswer, ApprovalRequest

HELP = "/exit  leave   /new  start a new session   /session  show the session id   /help  this text"


def stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class StepPrinter:
    """An event sink that prints the loop's steps with rich: calls, results, updates, retries."""

    def __init__(self, console: Any, *, stream_text: bool = True) -> None:
        self.console = console
        self.stream_text = stream_text
        self._streamed = False
        self.streamed_any = False

    def __call__(self, event: Event) -> None:
        from rich.markup import escape

        c = self.console
        if isinstance(event, TextDelta) and self.stream_text:
            self._streamed = True
            self.streamed_any = True
            c.print(escape(event.text), end="", style="green")
        elif isinstance(event, ModelReplied):
            if self._streamed:
                c.print()
            elif self.stream_text and event.text and event.tool_calls:
                c.print(escape(event.text), style="green")
            self._streamed = False
        elif isinstance(event, ToolCallsStarted):
            for call in event.calls:
                c.print(
                    f"[cyan]→ {escape(call.name)}[/]({escape(_short(arguments_text(call.arguments), 200))})"
                )
        elif isinstance(event, ToolResultReady):
            r = event.result
            style, mark = ("red", "✗") if r.error is not None else ("dim", "←")
            c.print(f"[{style}]{mark} {escape(r.name)}: {escape(_short(r.content))}[/]")
        elif isinstance(event, StateUpdated):
            c.print(f"[magenta]  state: {escape(', '.join(event.update))} updated[/]")
        elif isinstance(event, RetryScheduled):
            c.print(
                f"[yellow]  retry {event.attempt} in {event.delay_s:.1f}s: {escape(_short(event.error))}[/]"
            )
        elif isinstance(event, BudgetExhausted):
            c.print(f"[yellow]  iteration budget used up ({event.iterations}); asking for a summary[/]")
        elif isinstance(event, TurnInterrupted):
            c.print("[yellow]  the agent has a question for you[/]")


class LineReader:
    """Reads the user's lines without blocking the event loop (one reader for prompts and approvals)."""

    def __init__(self, console: Any) -> None:
        self.console = console

    async def read(self, prompt: str) -> str | None:
        self.console.print(prompt, end="")
        line: str = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return None
        return line.rstrip("\n")


class ChatApprover:
    """Asks the chat user inline. End of input counts as no (approvals fail closed)."""

    def __init__(self, reader: LineReader) -> None:
        self.reader = reader
        # Sub-agents run concurrently: one question on the screen at a time.
        self._lock = asyncio.Lock()

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        async with self._lock:
            return await self._ask(request)

    async def _ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        from rich.markup import escape

        args = json.dumps(dict(request.call.arguments), ensure_ascii=False)
        self.reader.console.print(
            f"[bold yellow]approval needed:[/] {escape(request.reason)}\n  {escape(request.call.tool.name)}"
            f"({escape(_short(args, 500))})"
        )
        answer = await self.reader.read("Allow? [y]es once / [s]ession / [N]o: ")
        choice = (answer or "").strip().lower()
        if choice in ("y", "yes"):
            return ApprovalAnswer(True, "once")
        if choice in ("s", "session"):
            return ApprovalAnswer(True, "session")
        return ApprovalAnswer(
            False, "once", "refused in chat" if answer is not None else "no answer (end of input)"
        )


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
