"""Executing tool calls (spec X): parse, validate, police, run and shape every call.

The entry point is `Executor` (`tooldeck.execution.executor`); the records it exchanges with the
agent loop are in `tooldeck.execution.types`.
"""

from tooldeck.execution.events import CallbackSink, CollectingSink, EventSink, ExecutionEvent, LoggingSink
from tooldeck.execution.executor import Executor
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
    Policy,
    TerminalApprover,
)
from tooldeck.execution.runner import CancelToken
from tooldeck.execution.settings import ExecutionSettings
from tooldeck.execution.types import (
    ToolCall,
    ToolError,
    ToolFailure,
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
    "EventSink",
    "ExecutionEvent",
    "ExecutionSettings",
    "Executor",
    "LoggingSink",
    "Policy",
    "TerminalApprover",
    "ToolCall",
    "ToolError",
    "ToolFailure",
    "ToolOutput",
    "ToolResult",
    "ToolUnavailableError",
    "ValidatedCall",
]
