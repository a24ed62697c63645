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

from tooldeck._utils.lazy import lazy_exports
from tooldeck._utils.version import __version__
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

# Imported on first use: a process pays for the parts it uses (`tooldeck --help`, a worker that
# only serves a scripted model, a module that only defines tools).
if TYPE_CHECKING:
    from tooldeck._config import Config, load_config, parse_config
    from tooldeck._core.assembly.explanation import Explanation
    from tooldeck._core.assembly.loadout import Fate, Loadout
    from tooldeck._core.availability_types import Availability
    from tooldeck._core.channel import Elicitation, Sample, SamplingMessage
    from tooldeck._core.content import (
        AudioContent,
        ContentBlock,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
    )
    from tooldeck._core.context import ToolContext
    from tooldeck._core.decorator import function_tool, tool
    from tooldeck._core.diagnostics import Diagnostic
    from tooldeck._core.execution.middleware import CallNext, Middleware, ToolCallRequest, TruncateResults
    from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, Approver, CallbackApprover
    from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ToolResult
    from tooldeck._core.output import ToolOutput
    from tooldeck._core.prompts import PromptMessage, prompt
    from tooldeck._core.resources import resource
    from tooldeck._core.session import Session
    from tooldeck._core.sources.base import Source, SourceListing, ToolSource
    from tooldeck._core.tool import DescriptionContext, Resource, Tool
    from tooldeck._deck import Deck
    from tooldeck.agent.models.scripted import ScriptedModel
    from tooldeck.agent.runtime import Agent

__all__ = [
    "Agent",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approver",
    "AudioContent",
    "Availability",
    "CallNext",
    "CallbackApprover",
    "Config",
    "ConfigError",
    "ContentBlock",
    "Deck",
    "DescriptionContext",
    "Diagnostic",
    "DialectError",
    "Elicitation",
    "EmbeddedResource",
    "ErrorEnvelope",
    "Explanation",
    "Fate",
    "ImageContent",
    "Loadout",
    "Middleware",
    "ModelError",
    "ModelNotConfigured",
    "PromptMessage",
    "Resource",
    "ResourceLink",
    "Sample",
    "SamplingMessage",
    "ScriptedModel",
    "Session",
    "SessionError",
    "Source",
    "SourceError",
    "SourceListing",
    "TextContent",
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
    "prompt",
    "resource",
    "tool",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
