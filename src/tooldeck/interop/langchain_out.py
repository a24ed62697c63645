"""The deck's loadout as LangChain tools: `langchain_tools(deck)`.

One `BaseTool` per exposed tool (as the deck assembles them now), named, described and
parametrised exactly as tooldeck renders it for a model. `.invoke({...})` and `.ainvoke({...})`
run the call through the deck's session and executor, once: tooldeck validates and coerces the
arguments (LangChain passes them on untouched), applies its policy and approvals, its timeout
and result shaping. A call that tooldeck refuses or that fails (approval denied, invalid
arguments, a timeout, the tool's own error) comes back as the error envelope's JSON text, the
text the model should read, with the `ToolMessage` marked `status="error"` when invoked with a
tool call; it never raises into the caller's graph.

The run identity is LangGraph's `thread_id` (or a `session_id`) in the call's
`config["configurable"]`: calls of one thread share one tooldeck session (its grants, promotions
and checkpoints); a call without one is a session of its own.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import PrivateAttr

from tooldeck.core import ToolResult
from tooldeck.interop.conversations import Conversations, DeckLike, Exported, exported


class DeckTool(BaseTool):
    """A LangChain tool whose calls run through a tooldeck deck (see the module docstring)."""

    handle_tool_error: bool = True
    _conversations: Conversations = PrivateAttr()

    def __init__(self, spec: Exported, conversations: Conversations) -> None:
        super().__init__(name=spec.name, description=spec.description, args_schema=spec.parameters)
        self._conversations = conversations

    def _run(self, _tooldeck_config: RunnableConfig, **arguments: Any) -> str:
        conversation = self._conversations.get(run_identity(_tooldeck_config))
        return _content(conversation.call_sync(self.name, arguments, _call_id(_tooldeck_config, self.name)))

    async def _arun(self, _tooldeck_config: RunnableConfig, **arguments: Any) -> str:
        conversation = self._conversations.get(run_identity(_tooldeck_config))
        return _content(await conversation.call(self.name, arguments, _call_id(_tooldeck_config, self.name)))


def langchain_tools(deck: DeckLike) -> list[BaseTool]:
    """LangChain tools for exactly the deck's exposed tools, each call through the deck."""
    conversations = Conversations(deck)
    return [DeckTool(spec, conversations) for spec in exported(deck.loadout())]


def run_identity(config: RunnableConfig | None) -> str | None:
    """The conversation a LangChain call belongs to: `configurable.thread_id` (LangGraph), else
    `configurable.session_id`; None when the caller named none."""
    configurable = (config or {}).get("configurable") or {}
    for key in ("thread_id", "session_id"):
        value = configurable.get(key)
        if isinstance(value, str | int) and str(value):
            return str(value)
    return None


def _call_id(config: RunnableConfig | None, name: str) -> str:
    run_id = (config or {}).get("run_id")
    return str(run_id) if run_id is not None else f"langchain-{name}"


def _content(result: ToolResult) -> str:
    if result.error is not None:
        # Handled by LangChain itself (`handle_tool_error`): the text is the tool's output and a
        # tool call's ToolMessage says status="error"; nothing is raised to the caller.
        raise ToolException(result.content)
    return result.content


__all__ = ["DeckTool", "langchain_tools", "run_identity"]
