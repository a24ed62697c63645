"""The conformance suite's tasks-extension tools (SEP-2663), written with tooldeck's public API:
a tool says whether its calls may be tasks (`task_support`) and may go on as one
(`ctx.run_as_task()`); `tooldeck serve` answers task handles, `tasks/get` and `tasks/update`."""

from __future__ import annotations

import asyncio

from tooldeck import ToolContext, tool
from tooldeck.errors import ProtocolError, ToolError

SET = "conformance"
CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
NAMED = {"type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@tool(toolset=SET, read_only=True, task_support="forbidden")
def greet(name: str) -> str:
    """Greets someone (always answered at once)."""
    return f"Hello, {name}!"


@tool(toolset=SET, read_only=True)
async def slow_compute(seconds: float, ctx: ToolContext, label: str = "") -> str:
    """Waits `seconds` (as a task when there is something to wait for), then answers."""
    if seconds > 0:
        await ctx.run_as_task(f"computing {label}".strip())
    await asyncio.sleep(seconds)
    return f"computed {label or 'it'} after {seconds:g} s"


@tool(toolset=SET, read_only=True, task_support="required")
async def failing_job() -> str:
    """Fails after a moment (a tool error: the task completes with isError)."""
    await asyncio.sleep(1)
    raise ToolError("the job failed, as it always does")


@tool(toolset=SET, read_only=True, task_support="required")
async def protocol_error_job() -> str:
    """Fails the request itself after a moment (a protocol error: the task fails)."""
    await asyncio.sleep(1)
    raise ProtocolError("the job broke the protocol, as it always does")


@tool(toolset=SET)
async def confirm_delete(filename: str, ctx: ToolContext) -> str:
    """Asks the user to confirm deleting `filename` (the question waits in the task)."""
    await ctx.run_as_task(f"deleting {filename}")
    answer = await ctx.elicit(f"Delete {filename}?", CONFIRM)
    confirmed = answer.accepted and dict(answer.content or {}).get("confirm") is True
    return f"deleted {filename}" if confirmed else f"kept {filename}"


@tool(toolset=SET, read_only=True)
async def multi_input(ctx: ToolContext) -> str:
    """Asks two questions at once (both wait in the task until each is answered)."""
    await ctx.run_as_task("waiting for two answers")
    first, second = await asyncio.gather(ctx.elicit("First name?", NAMED), ctx.elicit("Second name?", NAMED))
    names = [dict(a.content or {}).get("name") for a in (first, second)]
    return "got " + " and ".join(str(n) for n in names)


@tool(toolset=SET, read_only=True, task_support="required")
async def test_tool_with_task(ctx: ToolContext) -> str:
    """Asks for a name first (a round trip), then goes on as a task."""
    answer = await ctx.elicit("What is your name?", NAME, key="user_name")
    await ctx.run_as_task("greeting")
    await asyncio.sleep(0.2)
    return f"Hello, {dict(answer.content or {}).get('name')}!"


TOOLS = [
    greet,
    slow_compute,
    failing_job,
    protocol_error_job,
    confirm_delete,
    multi_input,
    test_tool_with_task,
]
