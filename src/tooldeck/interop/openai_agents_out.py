"""The deck's loadout as OpenAI Agents SDK tools: `Agent(tools=openai_agents_tools(deck))`.

One `FunctionTool` per exposed tool (as the deck assembles them now), named, described and
parametrised as tooldeck renders it (not in the SDK's strict mode: tooldeck's schemas keep their
optional parameters optional). The SDK hands each call's arguments as the model's JSON text;
they go verbatim into the deck's session and executor, once, so malformed JSON, invalid
arguments, a refusal or a timeout are tooldeck's error envelope, returned as the tool's output
for the model to read: never an exception, never the SDK's own approval (`needs_approval` is
off; tooldeck asks, and with nobody to ask the tool does not run).

The run identity is the run config's `group_id` (the SDK's name for a conversation's thread),
else the run itself: every call of one `Runner.run` shares a tooldeck session.
"""

from __future__ import annotations

import threading
import uuid
import weakref
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext

from tooldeck.interop.conversations import Conversations, DeckLike, Exported, exported


def openai_agents_tools(deck: DeckLike) -> list[FunctionTool]:
    """OpenAI Agents SDK function tools for exactly the deck's exposed tools, each call through the deck."""
    conversations = Conversations(deck)
    runs = _Runs()
    return [_function_tool(spec, conversations, runs) for spec in exported(deck.loadout())]


def _function_tool(spec: Exported, conversations: Conversations, runs: _Runs) -> FunctionTool:
    name = spec.name

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        conversation = conversations.get(runs.identity(ctx))
        result = await conversation.call(name, arguments, ctx.tool_call_id or f"openai-agents-{name}")
        return result.content

    return FunctionTool(
        name=name,
        description=spec.description,
        params_json_schema=spec.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


class _Runs:
    """A name for each run the tools are called in. The SDK hands every tool call of one
    `Runner.run` a context sharing the run's `usage` object; a weak reference to it marks the run
    (a finished run's object may go, and its id be reused, without naming a new run as the old)."""

    def __init__(self, keep: int = 1024) -> None:
        self.keep = keep
        self._names: dict[int, tuple[weakref.ref[Any], str]] = {}
        self._lock = threading.Lock()

    def identity(self, ctx: ToolContext[Any]) -> str:
        group = ctx.run_config.group_id if ctx.run_config is not None else None
        if group:
            return group
        anchor = ctx.usage
        with self._lock:
            found = self._names.get(id(anchor))
            if found is not None and found[0]() is anchor:
                return found[1]
            name = f"openai-agents-run-{uuid.uuid4().hex[:12]}"
            self._names[id(anchor)] = (weakref.ref(anchor), name)
            if len(self._names) > self.keep:
                self._names = {k: v for k, v in self._names.items() if v[0]() is not None}
            return name


__all__ = ["openai_agents_tools"]
