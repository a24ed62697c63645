"""The records that flow through execution: a call as the model made it, and its result.

These are the contract between the execution engine (X), the agent loop (L) and the CLI.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooldeck._core.content import ContentBlock
from tooldeck._core.output import ToolOutput
from tooldeck._core.run_state import RunStateUpdate
from tooldeck._core.tool import Tool
from tooldeck.errors import ErrorEnvelope, ErrorType, ToolError, ToolUnavailableError


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model emitted it. `arguments` is raw: a JSON string, a dict or None."""

    id: str
    name: str
    arguments: str | Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """Exactly one per call id. `content` is the text the model reads."""

    call_id: str
    name: str
    content: str
    error: ErrorEnvelope | None = None
    # State-update tools return changes to the run state (the artifacts, the todo list, ...).
    update: RunStateUpdate | None = None
    # Control-flow tools: set when the run must stop and wait (e.g. clarify's question).
    interrupt: Mapping[str, Any] | None = None
    duration_s: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict)
    # Content blocks besides the text (images, audio, resources; see tooldeck._core.content):
    # `content` names each of them in words, for readers of text only. Empty: text only.
    blocks: tuple[ContentBlock, ...] = ()
    # The result as data (MCP's structuredContent), when the tool gave one.
    structured: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def replace(self, **changes: Any) -> ToolResult:
        """A copy with `changes` (e.g. `result.replace(content=...)`), for middleware."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ValidatedCall:
    """A call that parsed and passed validation, before policy and running (pydantic-ai's idea).

    `arguments` are the coerced arguments the handler will get; `note` says when the name the
    model used was normalised to the tool's exact name (so the result can tell the model).
    """

    call: ToolCall
    tool: Tool
    arguments: dict[str, Any]
    note: str | None = None
    # For decorated tools: the arguments already validated into the tool's pydantic model.
    model: Any = None

    @property
    def id(self) -> str:
        return self.call.id

    @property
    def name(self) -> str:
        return self.tool.name


__all__ = [
    "ErrorEnvelope",
    "ErrorType",
    "ToolCall",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "ToolUnavailableError",
    "ValidatedCall",
]
