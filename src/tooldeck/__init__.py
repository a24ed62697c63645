"""tooldeck: the tool layer of an LLM agent.

Declare tools once; tooldeck decides which the model may see (and says why the others are
hidden), renders them for the provider, runs the calls and the agent loop.
"""

from tooldeck.assembly.loadout import Diagnostic, Fate, Loadout
from tooldeck.availability_types import Availability
from tooldeck.context import ToolContext
from tooldeck.decorator import function_tool, tool
from tooldeck.errors import (
    ConfigError,
    SourceError,
    ToolConflictError,
    TooldeckError,
    TooldeckSignal,
    ToolDefinitionError,
    ToolsetError,
)
from tooldeck.registry import Registry
from tooldeck.tool import DescriptionContext, Tool

__all__ = [
    "Availability",
    "ConfigError",
    "DescriptionContext",
    "Diagnostic",
    "Fate",
    "Loadout",
    "Registry",
    "SourceError",
    "Tool",
    "ToolConflictError",
    "ToolContext",
    "ToolDefinitionError",
    "TooldeckError",
    "TooldeckSignal",
    "ToolsetError",
    "function_tool",
    "tool",
]
