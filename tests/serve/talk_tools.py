"""Tools that talk back while they run, served in test_serve_talk_back.py."""

from __future__ import annotations

import asyncio
import json

from tooldeck import ToolContext, prompt, tool

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 1},
        "colour": {
            "type": "string",
            "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}],
            "default": "g",
        },
        "extras": {"type": "array", "items": {"type": "string", "enum": ["tea", "cake"]}, "default": []},
        "subscribe": {"type": "boolean", "default": False},
    },
    "required": ["name"],
}


@tool(toolset="talk")
async def count_up(n: int, ctx: ToolContext) -> str:
    """Count to n, saying how far it is."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
        await ctx.log("debug", f"detail {i}")
    await ctx.log("warning", "counted", {"n": n})
    return f"counted to {n}"


@tool(toolset="talk")
def slow_count(n: int, ctx: ToolContext) -> str:
    """The same from a synchronous handler."""
    for i in range(1, n + 1):
        ctx.report_progress_sync(i, n)
    ctx.log_sync("info", "sync counted")
    return f"sync counted to {n}"


@tool(toolset="talk")
async def ask_name(ctx: ToolContext) -> str:
    """Ask the user for their name and tastes."""
    answer = await ctx.elicit("Who are you?", FORM)
    return json.dumps({"action": answer.action, "content": answer.content, "reason": answer.reason})


@tool(toolset="talk")
async def ask_model(question: str, ctx: ToolContext) -> str:
    """Ask the client's model."""
    sample = await ctx.sample(question, max_tokens=50, system="Be brief.")
    return f"{sample.model}: {sample.text}"


@tool(toolset="talk")
async def roots(ctx: ToolContext) -> str:
    """The client's roots."""
    return json.dumps({"roots": [r.uri for r in await ctx.list_roots()]})


@tool(toolset="talk")
async def all_at_once(ctx: ToolContext) -> str:
    """Ask the user, the model and the client's roots at once."""
    answer, sample, found = await asyncio.gather(
        ctx.elicit("Who are you?", FORM, key="user_name"),
        ctx.sample("Greet Ada", max_tokens=20, key="greeting"),
        ctx.list_roots(key="client_roots"),
    )
    name = (answer.content or {}).get("name")
    return json.dumps({"name": name, "greeting": sample.text, "roots": [r.uri for r in found]})


@prompt
async def briefing(topic: str, ctx: ToolContext) -> str:
    """A briefing on a topic, for an audience the user names."""
    form = {"type": "object", "properties": {"audience": {"type": "string"}}, "required": ["audience"]}
    answer = await ctx.elicit(f"Who is the briefing on {topic} for?", form, key="audience")
    return f"Brief {dict(answer.content or {}).get('audience', 'everyone')} on {topic}."
