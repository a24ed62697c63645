"""The deck's loadout as a pydantic-ai toolset: `Agent(model, toolsets=[pydantic_ai_toolset(deck)])`.

At every step of a run pydantic-ai asks the toolset for its tools, and gets exactly what
tooldeck's own loop would send then: the loadout assembled at that moment (a check that flipped,
a source that changed) with the tools this conversation promoted through `tool_search` exposed,
each described and parametrised as tooldeck renders it; the names of the still-deferred tools
are the toolset's instructions. Each call runs through the deck's session and executor, once:
pydantic-ai is told to accept any arguments (tooldeck validates and coerces them against the
schema the model saw), and its retry and approval machinery is never used. A refused or failed
call (approval denied, invalid arguments, a timeout, the tool's error) is the tool's result, the
error envelope's JSON, for the model to read.

The run identity is the run's `conversation_id` (pydantic-ai keeps one across the runs of a
message history), else its `run_id`.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from tooldeck.core import deferred_listing
from tooldeck.interop.conversations import Conversation, Conversations, DeckLike, exported

# Arguments pass to tooldeck as the model sent them: its validation is the one that counts.
_ANY_ARGUMENTS = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


class DeckToolset(AbstractToolset[Any]):
    """A pydantic-ai toolset over a tooldeck deck (see the module docstring)."""

    def __init__(self, deck: DeckLike, *, id: str = "tooldeck") -> None:
        self._conversations = Conversations(deck)
        self._id = id

    @property
    def id(self) -> str:
        return self._id

    def conversation(self, ctx: RunContext[Any]) -> Conversation:
        return self._conversations.get(run_identity(ctx))

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        return deferred_listing(self.conversation(ctx).view())

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools: dict[str, ToolsetTool[Any]] = {}
        for spec in exported(self.conversation(ctx).view()):
            definition = ToolDefinition(
                name=spec.name,
                description=spec.description,
                parameters_json_schema=spec.parameters,
                sequential=spec.sequential,
            )
            tools[spec.name] = ToolsetTool(
                toolset=self, tool_def=definition, max_retries=0, args_validator=_ANY_ARGUMENTS
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        call_id = ctx.tool_call_id or f"pydantic-ai-{name}"
        result = await self.conversation(ctx).call(name, tool_args, call_id)
        return result.content


def pydantic_ai_toolset(deck: DeckLike) -> DeckToolset:
    """A pydantic-ai `AbstractToolset` over the deck's loadout, each call through the deck."""
    return DeckToolset(deck)


def run_identity(ctx: RunContext[Any]) -> str | None:
    """The conversation a pydantic-ai call belongs to."""
    return ctx.conversation_id or ctx.run_id


__all__ = ["DeckToolset", "pydantic_ai_toolset", "run_identity"]
