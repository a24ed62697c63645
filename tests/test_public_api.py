"""The curated public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import tooldeck


def test_all_is_pinned() -> None:
    assert sorted(tooldeck.__all__) == sorted(
        [
            "Agent", "ApprovalAnswer", "ApprovalRequest", "Approver", "Availability", "CallNext",
            "Config", "ConfigError", "Deck", "DescriptionContext", "Diagnostic", "DialectError", "ErrorEnvelope",
            "Explanation", "Fate", "Loadout", "Middleware", "ModelError", "ModelNotConfigured", "Resource",
            "ScriptedModel", "Session", "SessionError", "Source", "SourceError", "SourceListing", "Tool", "ToolCall",
            "ToolCallRequest", "ToolConflictError", "ToolContext", "ToolDefinitionError", "ToolError", "ToolOutput",
            "ToolResult", "ToolSource", "ToolUnavailableError", "TooldeckError", "TooldeckSignal",
            "ToolsetError", "TruncateResults", "UnknownPlatformError", "WorkspaceError", "__version__", "function_tool",
            "load_config", "parse_config", "tool",
        ]
    )  # fmt: skip
    for name in tooldeck.__all__:
        assert getattr(tooldeck, name) is not None


def test_every_exception_lives_in_one_module_under_one_of_two_roots() -> None:
    import inspect

    import tooldeck.errors as errors

    for name in tooldeck.__all__:
        value = getattr(tooldeck, name)
        if inspect.isclass(value) and issubclass(value, BaseException):
            assert value.__module__ == "tooldeck.errors", name
            assert issubclass(value, errors.TooldeckError | errors.TooldeckSignal), name
