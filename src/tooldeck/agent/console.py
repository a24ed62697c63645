"""The agent on a terminal: loop events printed with rich as they happen, and approvals asked
inline on the same input the chat reads from (used by `tooldeck chat` and `tooldeck run -v`)."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from typing import Any

from tooldeck._utils.text import for_terminal
from tooldeck.agent.events import (
    BudgetExhausted,
    CacheBreak,
    Event,
    ModelReplied,
    ReasoningDelta,
    ReasoningDropped,
    RetryScheduled,
    StateUpdated,
    TextDelta,
    ToolCallsStarted,
    ToolResultReady,
    TurnFinished,
    TurnInterrupted,
)
from tooldeck.agent.messages import arguments_text
from tooldeck.core import ApprovalAnswer, ApprovalRequest, approval_prompt, describe_request, parse_answer


def stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class StepPrinter:
    """An event sink that prints the loop's steps with rich: the model's reasoning (dimmed),
    calls, results, updates, retries, and what the turn cost."""

    def __init__(self, console: Any, *, stream_text: bool = True) -> None:
        self.console = console
        self.stream_text = stream_text
        self._streamed = False
        self._thinking = False  # reasoning is streaming (printed dimmed as it comes)
        self._reasoned = False  # this reply's reasoning has been shown
        self.streamed_any = False
        self._dropped: set[tuple[str, ...]] = set()

    def __call__(self, event: Event) -> None:

        c = self.console
        if isinstance(event, ReasoningDelta):
            self._thinking = self._reasoned = True
            c.print(_shown(event.text), end="", style="dim italic")
            return
        if self._thinking and not isinstance(event, ReasoningDropped):
            self._thinking = False
            c.print()
        if isinstance(event, ModelReplied) and self._reasoned:
            self._reasoned = False
            event = replace(event, reasoning="")  # shown already, as it came
        if isinstance(event, ReasoningDropped):
            if event.sources not in self._dropped:
                self._dropped.add(event.sources)
                c.print(
                    f"[yellow]  note: reasoning from {_shown(', '.join(event.sources))} is not sent to "
                    f"{_shown(event.target)}, which would reject it[/]"
                )
        elif isinstance(event, CacheBreak):
            c.print(
                f"[yellow]  cache break: {_shown('; '.join(event.changed))} (the provider's cache serves "
                f"{event.reused:.0%} of the previous request)[/]"
            )
        elif isinstance(event, ModelReplied) and event.reasoning:
            c.print(_shown(event.reasoning), style="dim italic")
            self(replace(event, reasoning=""))
        elif isinstance(event, TextDelta) and self.stream_text:
            self._streamed = True
            self.streamed_any = True
            c.print(_shown(event.text), end="", style="green")
        elif isinstance(event, ModelReplied):
            if self._streamed:
                c.print()
            elif self.stream_text and event.text and event.tool_calls:
                c.print(_shown(event.text), style="green")
            self._streamed = False
        elif isinstance(event, ToolCallsStarted):
            for call in event.calls:
                c.print(
                    f"[cyan]→ {_shown(call.name)}[/]({_shown(_short(arguments_text(call.arguments), 200))})"
                )
        elif isinstance(event, ToolResultReady):
            r = event.result
            style, mark = ("red", "✗") if r.error is not None else ("dim", "←")
            c.print(f"[{style}]{mark} {_shown(r.name)}: {_shown(_short(r.content))}[/]")
        elif isinstance(event, StateUpdated):
            c.print(f"[magenta]  state: {_shown(', '.join(event.update.changed()))} updated[/]")
        elif isinstance(event, RetryScheduled):
            c.print(
                f"[yellow]  retry {event.attempt} in {event.delay_s:.1f}s: {_shown(_short(event.error))}[/]"
            )
        elif isinstance(event, BudgetExhausted):
            c.print(f"[yellow]  iteration budget used up ({event.iterations}); asking for a summary[/]")
        elif isinstance(event, TurnInterrupted):
            if event.interrupt.get("kind") == "approval":
                waiting = len(event.interrupt.get("pending") or ())
                c.print(f"[yellow]  the turn waits for approval of {waiting} call(s)[/]")
            else:
                c.print("[yellow]  the agent has a question for you[/]")
        elif isinstance(event, TurnFinished) and event.usage:
            u = event.usage
            c.print(
                f"[dim]  tokens: {u.input_tokens} input ({u.cache_read_input_tokens} cache read, "
                f"{u.cache_creation_input_tokens} cache write), {u.output_tokens} output[/]"
            )


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

        head, _, rest = describe_request(request).partition("\n")
        self.reader.console.print(f"[bold yellow]{escape(head)}[/]\n{escape(rest)}")
        answer = await self.reader.read(escape(approval_prompt(request)))
        if answer is None:
            return ApprovalAnswer(False, "once", "no answer (end of input)")
        return parse_answer(answer, deferrable=request.deferrable)


def _shown(text: str) -> str:
    """Text for the rich console: control sequences made visible, markup escaped."""
    from rich.markup import escape

    shown: str = escape(for_terminal(text))
    return shown
