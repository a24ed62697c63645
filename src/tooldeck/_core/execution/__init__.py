"""Executing tool calls: parse, validate, police, run and shape every call.

The entry point is `Executor` (`tooldeck._core.execution.executor`); the records it exchanges with the
agent loop are in `tooldeck._core.execution.types`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_attributes

# Imported on first use: the built-in tools need only `types`, and loading a deck should not pay
# for the executor (asyncio, threads, validation).
if TYPE_CHECKING:
    from tooldeck._core.execution.events import (
        CallbackSink,
        CollectingSink,
        EventSink,
        ExecutionEvent,
        LoggingSink,
    )
    from tooldeck._core.execution.executor import Executor
    from tooldeck._core.execution.nested import ToolCaller
    from tooldeck._core.execution.policy import (
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
    from tooldeck._core.execution.runner import CancelToken
    from tooldeck._core.execution.safety_policy import SafetyPolicy
    from tooldeck._core.execution.types import (
        ErrorEnvelope,
        ToolCall,
        ToolError,
        ToolOutput,
        ToolResult,
        ToolUnavailableError,
        ValidatedCall,
    )

_LAZY: dict[str, str] = {
    "ApprovalAnswer": "tooldeck._core.execution.policy",
    "ApprovalFlagPolicy": "tooldeck._core.execution.policy",
    "ApprovalRequest": "tooldeck._core.execution.policy",
    "Approver": "tooldeck._core.execution.policy",
    "AutoApprover": "tooldeck._core.execution.policy",
    "CallbackApprover": "tooldeck._core.execution.policy",
    "CallbackSink": "tooldeck._core.execution.events",
    "CancelToken": "tooldeck._core.execution.runner",
    "ChainPolicy": "tooldeck._core.execution.policy",
    "CollectingSink": "tooldeck._core.execution.events",
    "Decision": "tooldeck._core.execution.policy",
    "DenyApprover": "tooldeck._core.execution.policy",
    "EventSink": "tooldeck._core.execution.events",
    "ExecutionEvent": "tooldeck._core.execution.events",
    "Grants": "tooldeck._core.execution.policy",
    "Executor": "tooldeck._core.execution.executor",
    "LoggingSink": "tooldeck._core.execution.events",
    "Policy": "tooldeck._core.execution.policy",
    "SafetyPolicy": "tooldeck._core.execution.safety_policy",
    "TerminalApprover": "tooldeck._core.execution.policy",
    "ToolCall": "tooldeck._core.execution.types",
    "ToolCaller": "tooldeck._core.execution.nested",
    "ErrorEnvelope": "tooldeck._core.execution.types",
    "ToolError": "tooldeck._core.execution.types",
    "ToolOutput": "tooldeck._core.execution.types",
    "ToolResult": "tooldeck._core.execution.types",
    "ToolUnavailableError": "tooldeck._core.execution.types",
    "ValidatedCall": "tooldeck._core.execution.types",
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
