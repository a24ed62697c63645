"""Executing tool calls: parse, validate, police, run and shape every call.

The entry point is `Executor` (`tooldeck.execution.executor`); the records it exchanges with the
agent loop are in `tooldeck.execution.types`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck.lazy import lazy_attributes

# Imported on first use: the built-in tools need only `types`, and loading a deck should not pay
# for the executor (asyncio, threads, validation).
if TYPE_CHECKING:
    from tooldeck.execution.events import CallbackSink, CollectingSink, EventSink, ExecutionEvent, LoggingSink
    from tooldeck.execution.executor import Executor
    from tooldeck.execution.nested import ToolCaller
    from tooldeck.execution.policy import (
        ApprovalAnswer,
        ApprovalFlagPolicy,
        ApprovalRequest,
        Approver,
        AutoApprover,
        CallbackApprover,
        ChainPolicy,
        Decision,
        DenyApprover,
        Grants,
        Policy,
        TerminalApprover,
    )
    from tooldeck.execution.runner import CancelToken
    from tooldeck.execution.safety_policy import SafetyPolicy
    from tooldeck.execution.types import (
        ErrorEnvelope,
        ToolCall,
        ToolError,
        ToolOutput,
        ToolResult,
        ToolUnavailableError,
        ValidatedCall,
    )

_LAZY: dict[str, str] = {
    "ApprovalAnswer": "tooldeck.execution.policy",
    "ApprovalFlagPolicy": "tooldeck.execution.policy",
    "ApprovalRequest": "tooldeck.execution.policy",
    "Approver": "tooldeck.execution.policy",
    "AutoApprover": "tooldeck.execution.policy",
    "CallbackApprover": "tooldeck.execution.policy",
    "CallbackSink": "tooldeck.execution.events",
    "CancelToken": "tooldeck.execution.runner",
    "ChainPolicy": "tooldeck.execution.policy",
    "CollectingSink": "tooldeck.execution.events",
    "Decision": "tooldeck.execution.policy",
    "DenyApprover": "tooldeck.execution.policy",
    "EventSink": "tooldeck.execution.events",
    "ExecutionEvent": "tooldeck.execution.events",
    "Grants": "tooldeck.execution.policy",
    "Executor": "tooldeck.execution.executor",
    "LoggingSink": "tooldeck.execution.events",
    "Policy": "tooldeck.execution.policy",
    "SafetyPolicy": "tooldeck.execution.safety_policy",
    "TerminalApprover": "tooldeck.execution.policy",
    "ToolCall": "tooldeck.execution.types",
    "ToolCaller": "tooldeck.execution.nested",
    "ErrorEnvelope": "tooldeck.execution.types",
    "ToolError": "tooldeck.execution.types",
    "ToolOutput": "tooldeck.execution.types",
    "ToolResult": "tooldeck.execution.types",
    "ToolUnavailableError": "tooldeck.execution.types",
    "ValidatedCall": "tooldeck.execution.types",
}


__getattr__ = lazy_attributes(__name__, _LAZY, globals())

__all__ = [
    "ApprovalAnswer",
    "ApprovalFlagPolicy",
    "ApprovalRequest",
    "Approver",
    "AutoApprover",
    "CallbackApprover",
    "CallbackSink",
    "CancelToken",
    "ChainPolicy",
    "CollectingSink",
    "Decision",
    "DenyApprover",
    "ErrorEnvelope",
    "EventSink",
    "ExecutionEvent",
    "Executor",
    "Grants",
    "LoggingSink",
    "Policy",
    "SafetyPolicy",
    "TerminalApprover",
    "ToolCall",
    "ToolCaller",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "ToolUnavailableError",
    "ValidatedCall",
]
