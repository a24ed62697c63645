"""The records that flow through execution: a call as the model made it, and its result.

These are the contract between the execution engine (X), the agent loop (L) and the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldeck.errors import TooldeckError
from tooldeck.tool import Tool

ErrorType = Literal[
    "invalid_arguments",
    "unknown_tool",
    "timeout",
    "tool_error",
    "denied",
    "not_promoted",
    "unavailable",
    "cancelled",
]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model emitted it. `arguments` is raw: a JSON string, a dict or None."""

    id: str
    name: str
    arguments: str | Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolError:
    """The one error envelope every failure kind is reported in (spec X6)."""

    type: ErrorType
    message: str
    tool: str
    retryable: bool = False

    def envelope(self) -> dict[str, Any]:
        return {
            "error": {
                "type": self.type,
                "message": self.message,
                "tool": self.tool,
                "retryable": self.retryable,
            }
        }

    def to_json(self) -> str:
        return json.dumps(self.envelope(), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """Exactly one per call id. `content` is the text the model reads."""

    call_id: str
    name: str
    content: str
    error: ToolError | None = None
    # State-update tools (X7) return changes to the run state, e.g. {"artifacts": [...]}.
    update: Mapping[str, Any] | None = None
    # Control-flow tools (X7): set when the run must stop and wait (e.g. clarify's question).
    interrupt: Mapping[str, Any] | None = None
    duration_s: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a handler may return instead of a plain value, for the other forms of tools (X7).

    `update` is merged into the run state (state-update tools such as `present_files`);
    `interrupt` stops the run and hands a question to the user (control-flow tools such
    as `clarify`); `content` is what the model reads either way.
    """

    content: str
    update: Mapping[str, Any] | None = None
    interrupt: Mapping[str, Any] | None = None


# Errors a handler may raise to control its envelope; anything else becomes `tool_error`.
class ToolFailure(TooldeckError):
    """Raised by a handler for a clean failure: the message goes to the model as is, no traceback.

    `type` picks the envelope type (`tool_error`, `denied`, `unavailable`, ...) and `retryable`
    tells the model whether trying again (possibly with other arguments) may help.
    """

    def __init__(self, message: str, *, type: ErrorType = "tool_error", retryable: bool = False) -> None:
        super().__init__(message)
        self.type: ErrorType = type
        self.retryable = retryable


class ToolUnavailableError(ToolFailure):
    """What a tool needs is gone right now (server down, binary missing); maybe later."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message, type="unavailable", retryable=retryable)


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
