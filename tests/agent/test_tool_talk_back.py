"""A running tool talks back in the agent loop and through the deck: its progress and log
messages become events, its forms go to the approver (`--yes`: the form's defaults, a program's
approver: its own answer, nobody: declined), and it may ask the agent's own model (sampling)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tooldeck import Config, Deck, Elicitation, SamplingMessage, ToolContext, tool
from tooldeck._core.execution.events import CollectingSink
from tooldeck.agent import EventLog, ScriptedModel, call, reply
from tooldeck.agent.events import ToolLogged, ToolProgress
from tooldeck.core import AutoApprover, ElicitationRequest, TerminalApprover
from tooldeck.errors import ToolError

FORM = {
    "type": "object",
    "properties": {
        "size": {"type": "integer", "minimum": 1, "default": 3},
        "tone": {
            "type": "string",
            "enum": ["plain", "fancy"],
            "enumNames": ["Plain", "Fancy"],
            "default": "plain",
        },
    },
}
NEEDS_NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@tool(toolset="talk")
async def steps(n: int, ctx: ToolContext) -> str:
    """Work in n steps."""
    for i in range(n):
        await ctx.report_progress(i + 1, n)
    await ctx.log("notice", "all steps done", {"n": n})
    return "done"


@tool(toolset="talk")
async def form(strict: bool, ctx: ToolContext) -> str:
    """Ask for a form."""
    answer = await ctx.elicit("Settings?", NEEDS_NAME if strict else FORM)
    return json.dumps({"action": answer.action, "content": answer.content, "reason": answer.reason})


@tool(toolset="talk")
def summarise(text: str, ctx: ToolContext) -> str:
    """Ask the model, from a synchronous handler."""
    sample = ctx.sample_sync(
        [SamplingMessage("user", f"Summarise: {text}")], max_tokens=20, system="One line."
    )
    return f"[{sample.model}] {sample.text}"


def deck() -> Deck:
    return Deck(Config(platform_toolsets={"cli": ["talk"]}), tools=[steps, form, summarise])


def test_progress_and_logs_are_events_of_the_call() -> None:
    sink = CollectingSink()
    d = deck()
    with d.session(events=sink) as session:
        result = session.call_sync("steps", {"n": 2})
    assert result.ok
    progress = [e for e in sink.events if e.kind == "progress"]
    assert [(e.data["progress"], e.data["total"]) for e in progress] == [(1, 2), (2, 2)]
    [logged] = [e for e in sink.events if e.kind == "log"]
    assert logged.message == "all steps done" and logged.data == {"level": "notice", "data": {"n": 2}}


def answer(result: Any) -> dict[str, Any]:
    assert result.ok, result.content
    data: dict[str, Any] = json.loads(result.content)
    return data


def test_a_form_gets_what_the_approver_can_give() -> None:
    d = deck()
    # --yes: the defaults, when they fill the form; declined when a required field has none.
    assert answer(d.call_sync("form", {"strict": False}, approver=AutoApprover()))["content"] == {
        "size": 3,
        "tone": "plain",
    }
    strict = answer(d.call_sync("form", {"strict": True}, approver=AutoApprover()))
    assert strict["action"] == "decline" and "name" in strict["reason"]
    # Nobody to ask (no approver, or a terminal approver without a terminal): declined.
    assert answer(d.call_sync("form", {"strict": False}))["action"] == "decline"

    class Picky:
        async def approve(self, request: Any) -> Any:
            raise AssertionError("not an approval")

        async def elicit(self, request: ElicitationRequest) -> Elicitation:
            assert request.tool == "form" and request.message == "Settings?"
            return Elicitation("accept", {"size": 0})  # below the form's minimum

    bad = answer(d.call_sync("form", {"strict": False}, approver=Picky()))
    assert bad["action"] == "decline" and bad["content"] is None and "size" in bad["reason"]


def test_a_form_that_mcp_does_not_allow_is_refused_before_anyone_is_asked() -> None:
    @tool(toolset="talk")
    async def nested(ctx: ToolContext) -> str:
        """Ask a nested form."""
        await ctx.elicit("?", {"type": "object", "properties": {"a": {"type": "object"}}})
        return "asked"

    d = Deck(Config(platform_toolsets={"cli": ["talk"]}), tools=[nested])
    result = d.call_sync("nested", {}, approver=AutoApprover())
    assert result.error is not None and "nested objects are not allowed" in result.error.message


def test_the_terminal_asks_each_field_and_takes_defaults() -> None:
    from tooldeck._core.execution.forms import ask_form

    lines = iter(["\n", "x\n", "2\n"])
    shown: list[str] = []
    got = ask_form(ElicitationRequest("form", "c1", "Settings?", FORM), lambda: next(lines), shown.append)
    assert got == Elicitation("accept", {"size": 3, "tone": "fancy"})
    text = "".join(shown)
    assert "form asks: Settings?" in text and "2. Fancy (fancy)" in text and "choose among 1-2" in text
    cancelled = ask_form(ElicitationRequest("form", "c1", "?", FORM), lambda: "", shown.append)
    assert cancelled.action == "cancel"


def test_a_terminal_approver_without_a_terminal_declines() -> None:
    import io

    got = asyncio.run(TerminalApprover(stdin=io.StringIO("")).elicit(ElicitationRequest("f", "c", "?", FORM)))
    assert got.action == "decline" and "terminal" in got.reason


def test_sampling_outside_the_agent_is_an_error_that_says_why() -> None:
    result = deck().call_sync("summarise", {"text": "long"})
    assert result.error is not None and result.error.type == "unavailable"
    assert "sampling" in result.error.message


def test_in_the_agent_loop_progress_logs_and_sampling_use_the_loop() -> None:
    events = EventLog()
    model = ScriptedModel(
        [
            reply(calls=[call("steps", {"n": 2}), call("summarise", {"text": "a long story"})]),
            reply("a story, briefly"),  # the tool's own question
            reply("all done"),
        ],
        model_name="scripted-7",
    )
    agent = deck().agent(model, store=False, events=events)

    async def main() -> Any:
        return await agent.run(agent.new_conversation(), "go")

    result = asyncio.run(main())
    assert result.text == "all done"
    _first, asked, last = model.requests
    assert asked.loadout is None and asked.system == "One line."
    assert [(m.role, m.content) for m in asked.messages] == [("user", "Summarise: a long story")]
    [summary] = [m for m in last.messages if m.role == "tool" and m.name == "summarise"]
    assert summary.content == "[scripted-7] a story, briefly"
    progress = [e for e in events.events if isinstance(e, ToolProgress)]
    assert [(e.tool, e.progress, e.total) for e in progress] == [("steps", 1, 2), ("steps", 2, 2)]
    [logged] = [e for e in events.events if isinstance(e, ToolLogged)]
    assert (logged.level, logged.message, logged.data) == ("notice", "all steps done", {"n": 2})


def test_bad_levels_and_budgets_are_refused() -> None:
    ctx = ToolContext(tool_name="t")
    with pytest.raises(ValueError, match="log level"):
        asyncio.run(ctx.log("loud", "x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_tokens"):
        asyncio.run(ctx.sample("x", max_tokens=0))
    with pytest.raises(ToolError, match="at least one message"):
        asyncio.run(ctx.sample([]))


def test_outside_serve_there_are_no_client_roots() -> None:
    @tool(toolset="talk")
    async def where(ctx: ToolContext) -> str:
        """The client's roots."""
        return repr(await ctx.list_roots(key="r"))

    d = Deck(Config(platform_toolsets={"cli": ["talk"]}), tools=[where])
    assert d.call_sync("where", {}).content == "()"
