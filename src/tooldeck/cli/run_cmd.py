"""`tooldeck run PROMPT`: one agent turn; prints the final answer (spec C).

Exit codes: 0 the turn ended (answer, summary after the iteration budget, or a clarify question
waiting for `--resume`), 1 the model call failed, 2 bad usage or config (including no model
endpoint configured).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from tooldeck.cli.app import app
from tooldeck.cli.common import ConfigOption, JsonOption, PlatformOption, fail, load_deck, print_json

# The agent machinery is imported when a command runs, not when the CLI starts.
if TYPE_CHECKING:
    from tooldeck.agent.events import EventSink
    from tooldeck.agent.loop import Conversation, TurnResult
    from tooldeck.agent.runtime import Agent
    from tooldeck.execution.policy import Approver

T = TypeVar("T")

ModelOption = typer.Option(None, "--model", "-m", help="Model name (default: config model.name).")
BaseUrlOption = typer.Option(
    None,
    "--base-url",
    help="What the provider's SDK takes as base URL: OpenAI-compatible ends in /v1; Anthropic is the host root.",
)
ProviderOption = typer.Option(None, "--provider", help="openai | responses | anthropic (default: config).")
ResumeOption = typer.Option(None, "--resume", help="Continue a stored session (id or unique prefix).")
TranscriptOption = typer.Option(None, "--transcript", help="Write the session's messages to this JSON file.")
MaxIterOption = typer.Option(None, "--max-iterations", min=1, help="Tool iterations per turn (default 90).")
YesOption = typer.Option(
    False,
    "--yes",
    "-y",
    help="Approve tools that need approval (else asked on a terminal, refused without one).",
)


def build_agent(
    config: Path | None,
    *,
    platform: str | None,
    model: str | None,
    base_url: str | None,
    provider: str | None,
    max_iterations: int | None,
    events: EventSink | None,
    approver: Approver | None,
) -> Agent:
    """The agent for a command; config problems and a missing model endpoint exit 2."""
    from tooldeck.agent.models.factory import make_model, resolve_model_settings
    from tooldeck.agent.runtime import Agent
    from tooldeck.errors import ConfigError, SessionError, ToolsetError

    deck = load_deck(config)
    try:
        settings = resolve_model_settings(
            deck.config.model,
            model=model,
            base_url=base_url,
            provider=provider,
            strict_tools=deck.config.dialects.openai.strict,
        )
        return Agent.from_deck(
            deck,
            make_model(settings),
            platform=platform,
            events=events,
            approver=approver,
            max_iterations=max_iterations,
        )
    except (ConfigError, ToolsetError, SessionError) as exc:
        fail(str(exc) if isinstance(exc, ConfigError) else f"config error: {exc}")


def open_conversation(agent: Agent, resume: str | None) -> Conversation:
    from tooldeck.errors import SessionError

    if resume is None:
        return agent.new_conversation()
    try:
        return agent.resume(resume)
    except SessionError as exc:
        fail(str(exc))


def write_transcript(path: Path, convo: Conversation, result: TurnResult | None, error: str | None) -> None:
    data: dict[str, Any] = {
        "session_id": convo.session_id,
        "system": convo.system,
        "messages": [m.to_dict() for m in convo.messages],
        "state": {k: v for k, v in convo.state.items() if not k.startswith("_")},
        "status": result.status if result is not None else ("error" if error else "open"),
    }
    if error is not None:
        data["error"] = error
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write transcript {path}: {exc.strerror or exc}", 1)


def result_json(result: TurnResult, convo: Conversation) -> dict[str, Any]:
    return {
        "status": result.status,
        "text": result.text,
        "question": result.question,
        "session_id": result.session_id,
        "iterations": result.iterations,
        "usage": {"input_tokens": result.usage.input_tokens, "output_tokens": result.usage.output_tokens},
        "artifacts": convo.state.get("artifacts", []),
        "todo": convo.state.get("todo", []),
    }


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run the command's coroutine; Ctrl-C ends it quietly with exit code 130."""
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        typer.echo("tooldeck: interrupted", err=True)
        raise typer.Exit(130) from None


@app.command("run")
def run_command(
    prompt: str | None = typer.Argument(
        None, help="The user's message ('-' reads stdin; with --resume: the next message or the answer)."
    ),
    model: str | None = ModelOption,
    base_url: str | None = BaseUrlOption,
    provider: str | None = ProviderOption,
    resume: str | None = ResumeOption,
    transcript: Path | None = TranscriptOption,
    max_iterations: int | None = MaxIterOption,
    yes: bool = YesOption,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show each step on stderr."),
    config: Path | None = ConfigOption,
    platform: str | None = PlatformOption,
    as_json: bool = JsonOption,
) -> None:
    """Run one agent turn and print the final answer."""
    from tooldeck.execution.policy import AutoApprover, TerminalApprover

    if prompt is None and resume is None:
        fail("missing PROMPT (the user's message; '-' reads it from stdin)")
    if prompt == "-":
        prompt = sys.stdin.read().strip()
        if not prompt:
            fail("PROMPT '-' read an empty message from stdin")
    events = None
    if verbose:
        from tooldeck.agent.console import StepPrinter, stderr_console

        events = StepPrinter(stderr_console(), stream_text=False)
    agent = build_agent(
        config,
        platform=platform,
        model=model,
        base_url=base_url,
        provider=provider,
        max_iterations=max_iterations,
        events=events,
        # On a terminal the user is asked; without one the answer is no (fail closed).
        approver=AutoApprover() if yes else TerminalApprover(),
    )
    convo = open_conversation(agent, resume)
    unfinished = bool(convo.messages) and convo.messages[-1].role in ("user", "tool") and not convo.pending
    if prompt is None and not unfinished:
        # Without a new message only an unfinished turn (a model error, a crash) can be continued.
        waiting = (
            f" is waiting for an answer to: {convo.pending.get('question')}" if convo.pending else " ended"
        )
        fail(f"session {convo.session_id}{waiting}; pass the next message as PROMPT")
    result, error = run_async(_turn(agent, convo, prompt))
    if transcript is not None:
        write_transcript(transcript, convo, result, error)
    if result is None:
        fail(f"model error: {error} (session {convo.session_id})", 1)
    _report(result, convo, as_json)


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


def _report(result: TurnResult, convo: Conversation, as_json: bool) -> None:
    if as_json:
        print_json(result_json(result, convo))
        return
    typer.echo(result.text)
    if result.status == "interrupted":
        choices = (result.interrupt or {}).get("choices")
        if choices:
            typer.echo("choices: " + " | ".join(str(c) for c in choices))
        typer.echo(
            f'tooldeck: the agent is waiting for your answer: tooldeck run --resume {result.session_id} "ANSWER"',
            err=True,
        )
    elif result.status == "budget_exhausted":
        typer.echo(f"tooldeck: the iteration budget ran out after {result.iterations} iterations", err=True)
    typer.echo(f"tooldeck: session {result.session_id}", err=True)
