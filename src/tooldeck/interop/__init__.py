"""tooldeck with the agent frameworks teams already have: LangChain, pydantic-ai, the OpenAI Agents SDK.

Tools in: a LangChain `BaseTool`, a pydantic-ai `Tool` or an OpenAI Agents `FunctionTool` given
to `Deck(tools=[...])` or named by a config `use:` entry becomes a tooldeck tool with the name,
description and JSON schema its framework gives it, gated, explained and called like any other
(`foreign_tools` does the conversion; `framework_of` tells, without importing any framework).

The loadout out, each call through the deck's session and executor:

    tools = langchain_tools(deck)          # LangChain BaseTools (also deck.langchain_tools())
    toolset = pydantic_ai_toolset(deck)    # Agent(model, toolsets=[toolset])
    tools = openai_agents_tools(deck)      # agents.Agent(tools=tools)

Nothing here imports a framework until it is used: each adapter's module imports its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

if TYPE_CHECKING:
    from tooldeck.interop.detect import foreign_tools, framework_of
    from tooldeck.interop.langchain_out import langchain_tools
    from tooldeck.interop.openai_agents_out import openai_agents_tools
    from tooldeck.interop.pydantic_ai_out import pydantic_ai_toolset

__all__ = ["foreign_tools", "framework_of", "langchain_tools", "openai_agents_tools", "pydantic_ai_toolset"]

__getattr__ = lazy_exports(__name__, __file__, globals())
