"""Tools for the tasks-extension tests: each waits for a file the test creates (so a call is
still running when the test looks), asks, or fails the request, through its `ToolContext`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tooldeck import ToolContext, tool
from tooldeck.errors import ProtocolError

SET = "tasks"
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@tool(toolset=SET, read_only=True)
async def wait_for(gate: str, ctx: ToolContext) -> str:
    """Waits until the file `gate` exists, then answers with what it holds."""
    await ctx.report_progress(0, 1, "waiting for the gate")
    try:
        while not Path(gate).exists():
            await asyncio.sleep(0.02)
    except asyncio.CancelledError:
        Path(gate + ".cancelled").write_text("cancelled")
        raise
    return f"opened: {Path(gate).read_text()}"


@tool(toolset=SET, read_only=True)
async def wait_as_task(gate: str, ctx: ToolContext) -> str:
    """Goes on as a task at once, then waits for the file `gate`."""
    became = await ctx.run_as_task("waiting as a task")
    while not Path(gate).exists():
        await asyncio.sleep(0.02)
    return f"task={became}"


@tool(toolset=SET, read_only=True)
def ask_in_thread(ctx: ToolContext) -> str:
    """A synchronous tool: goes on as a task, then asks the user."""
    became = ctx.run_as_task_sync("asking from a thread")
    answer = ctx.elicit_sync("Your name?", NAME)
    name = dict(answer.content or {}).get("name")
    return f"task={became} action={answer.action} name={name}"


@tool(toolset=SET, read_only=True)
async def ask_model(ctx: ToolContext) -> str:
    """Goes on as a task, then asks the client's model."""
    await ctx.run_as_task()
    sample = await ctx.sample("Say hello", max_tokens=20)
    return f"the model said: {sample.text}"


@tool(toolset=SET, read_only=True, task_support="required")
async def must_be_task() -> str:
    """Always answered as a task."""
    return "done as a task"


@tool(toolset=SET, read_only=True)
async def breaks_protocol() -> str:
    """Fails the request itself."""
    raise ProtocolError("the request cannot be served", code=-32602, data={"field": "gate"})


@tool(toolset=SET, read_only=True, task_support="forbidden")
async def never_task(gate: str, ctx: ToolContext) -> str:
    """Never a task, however long it waits."""
    became = await ctx.run_as_task()
    while not Path(gate).exists():
        await asyncio.sleep(0.02)
    return f"task={became}"


@tool(toolset=SET, read_only=True)
def plain(word: str) -> str:
    """Echoes `word` (made a required-task tool by its config entry)."""
    return word


TOOLS = [wait_for, wait_as_task, ask_in_thread, ask_model, must_be_task, breaks_protocol, never_task]
