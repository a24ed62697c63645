"""tooldeck: the tool layer of an LLM agent.

Declare tools once; tooldeck decides which the model may see (and says why the others are
hidden), renders them for the provider, runs the calls and the agent loop. Everything starts at
`Deck`:

    from tooldeck import Deck, tool

    @tool(toolset="text")
    def shout(text: str) -> str:
        "Upper-case a text."
        return text.upper()

    deck = Deck(tools=[shout])
    deck.tools()                            # what the model is sent
    deck.call_sync("shout", {"text": "hi"})  # a call through the whole execution path
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck.availability_types import Availability
from tooldeck.context import ToolContext
from tooldeck.decorator import function_tool, tool
from tooldeck.errors import (
    ConfigError,
    DialectError,
    ModelError,
    ModelNotConfigured,
    SessionError,
    SourceError,
    ToolConflictError,
    TooldeckError,
    TooldeckSignal,
    ToolDefinitionError,
    ToolError,
    ToolsetError,
    ToolUnavailableError,
    UnknownPlatformError,
    WorkspaceError,
)
from tooldeck.lazy import lazy_attributes
from tooldeck.output import ToolOutput
from tooldeck.tool import DescriptionContext, Resource, Tool
from tooldeck.version import __version__

# Imported on first use, so that a module that only defines tools stays cheap to import.
if TYPE_CHECKING:
    from tooldeck.agent.models.scripted import ScriptedModel
    from tooldeck.agent.runtime import Agent
    from tooldeck.assembly.loadout import Fate, Loadout
    from tooldeck.config import Config
    from tooldeck.config_load import load_config, parse_config
    from tooldeck.deck import Deck, Explanation
    from tooldeck.diagnostics import Diagnostic
    from tooldeck.execution.middleware import CallNext, Middleware, ToolCallRequest, TruncateResults
    from tooldeck.execution.policy import ApprovalAnswer, ApprovalRequest, Approver
    from tooldeck.execution.types import ErrorEnvelope, ToolCall, ToolResult
    from tooldeck.session import Session
    from tooldeck.sources.base import Source, SourceListing, ToolSource

_LAZY: dict[str, str] = {
    "Agent": "tooldeck.agent.runtime",
    "ApprovalAnswer": "tooldeck.execution.policy",
    "ApprovalRequest": "tooldeck.execution.policy",
    "CallNext": "tooldeck.execution.middleware",
    "Middleware": "tooldeck.execution.middleware",
    "Session": "tooldeck.session",
    "ToolCallRequest": "tooldeck.execution.middleware",
    "TruncateResults": "tooldeck.execution.middleware",
    "Approver": "tooldeck.execution.policy",
    "Config": "tooldeck.config",
    "Deck": "tooldeck.deck",
    "Diagnostic": "tooldeck.diagnostics",
    "ErrorEnvelope": "tooldeck.execution.types",
    "Explanation": "tooldeck.deck",
    "Fate": "tooldeck.assembly.loadout",
    "Loadout": "tooldeck.assembly.loadout",
    "ScriptedModel": "tooldeck.agent.models.scripted",
    "Source": "tooldeck.sources.base",
    "SourceListing": "tooldeck.sources.base",
    "ToolCall": "tooldeck.execution.types",
    "ToolResult": "tooldeck.execution.types",
    "ToolSource": "tooldeck.sources.base",
    "load_config": "tooldeck.config_load",
    "parse_config": "tooldeck.config_load",
}


__getattr__ = lazy_attributes(__name__, _LAZY, globals())

__all__ = [
    "Agent",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approver",
    "Availability",
    "CallNext",
    "Config",
    "ConfigError",
    "Deck",
    "DescriptionContext",
    "Diagnostic",
    "DialectError",
    "ErrorEnvelope",
    "Explanation",
    "Fate",
    "Loadout",
    "Middleware",
    "ModelError",
    "ModelNotConfigured",
    "Resource",
    "ScriptedModel",
    "Session",
    "SessionError",
    "Source",
    "SourceError",
    "SourceListing",
    "Tool",
    "ToolCall",
    "ToolCallRequest",
    "ToolConflictError",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "ToolSource",
    "ToolUnavailableError",
    "TooldeckError",
    "TooldeckSignal",
    "ToolsetError",
    "TruncateResults",
    "UnknownPlatformError",
    "WorkspaceError",
    "__version__",
    "function_tool",
    "load_config",
    "parse_config",
    "tool",
]
