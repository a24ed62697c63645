"""Executing tool calls: parse, validate, police, run and shape every call.

The entry point is `Executor` (`tooldeck._core.execution.executor`); the records it exchanges with the
agent loop are in `tooldeck._core.execution.types`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

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

__getattr__ = lazy_exports(__name__, __file__, globals())
