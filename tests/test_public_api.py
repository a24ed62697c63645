"""The curated public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import tooldeck


def test_all_is_pinned() -> None:
    assert sorted(tooldeck.__all__) == sorted(
        [
            "Agent", "ApprovalAnswer", "ApprovalRequest", "Approver", "Availability", "CallNext", "CallbackApprover",
            "Config", "ConfigError", "Deck", "DescriptionContext", "Diagnostic", "DialectError", "ErrorEnvelope",
            "Explanation", "Fate", "Loadout", "Middleware", "ModelError", "ModelNotConfigured", "Resource",
            "ScriptedModel", "Session", "SessionError", "Source", "SourceError", "SourceListing", "Tool", "ToolCall",
            "ToolCallRequest", "ToolConflictError", "ToolContext", "ToolDefinitionError", "ToolError", "ToolOutput",
            "AudioContent", "ContentBlock", "EmbeddedResource", "ImageContent", "ResourceLink", "TextContent",
            "Elicitation", "Sample", "SamplingMessage", "PromptMessage", "prompt", "resource",
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


def test_the_core_public_face_is_pinned_and_every_name_resolves() -> None:
    """`tooldeck.core` is what satellites (ours and a team's own) build on; its names are kept."""
    import tooldeck.core as core

    assert sorted(core.__all__) == sorted(
        [
            "APPROVAL_PROMPT", "AlwaysGrants", "AuditLog", "ApprovalAnswer", "ApprovalRequest", "Approvals", "ApprovalsConfig",
            "Approver", "AutoApprover", "Availability", "Bounds", "ChangeKind", "Checkpoint",
            "CheckpointStore", "Checkpointed", "CheckpointsConfig", "ConfigSection", "CoreConfig",
            "ConfinedRoot", "ControlPlane", "DescriptionContext", "Diagnostic", "EffectsConfig", "ErrorEnvelope", "ExecutionConfig",
            "Fate", "Grants", "Loadout", "McpSource", "ModelConfig", "PathChange", "PathState", "Policy", "PromotedView", "Promotions",
            "Recording", "Resource", "RunState", "RunStateUpdate", "SKILL_FILE", "SandboxConfig", "ServerSpec", "ServerStatus",
            "Session", "Skill", "SkillCatalog", "Source", "SourceListing", "TerminalApprover", "TodoItem",
            "TodoStatus", "Tool", "ToolCall", "ToolCaller", "ToolContext", "ToolCost", "ToolOutput", "ToolRendering",
            "AudioContent", "ContentBlock", "EmbeddedResource", "ImageContent", "ResourceLink", "TextContent",
            "CallChannel", "LOGGING_LEVELS", "MAX_SECONDS", "MCP_EXAMPLES_KEY", "LogEntry", "ProgressReport", "Root", "RootsRequest", "ToolChannel", "Elicitation", "ElicitationRequest", "LoggingLevel", "Sample",
            "SamplingMessage", "SamplingRequest", "TaskRequest",
            "DeclaredResource", "Prompt", "PromptArgument", "PromptMessage", "prompt", "resource",
            "ToolResult", "ToolSource", "UndoReport", "Workspace", "WriteBudget", "active_skills", "approval_prompt", "catalog_hash", "checked_form_answer", "checkpoint_store", "content_from_mcp", "content_to_mcp",
            "close_mcp_servers", "closing_mcp_sessions", "config_schema_adapter", "config_section", "current_checkpoint", "current_write_budget", "deferred_catalog", "deferred_listing", "describe_request",
            "entry_owner", "load_skills", "loader_name", "mcp_login", "mcp_logout", "mcp_server_specs", "parse_answer", "promote",
            "promoted_names", "render_loadout", "scan_folder", "service", "skill_body", "skill_dirs", "token_table", "toolset_lines",
            "tool", "tool_costs", "undo_checkpoints",
        ]
    )  # fmt: skip
    for name in core.__all__:
        assert getattr(core, name) is not None
    # The front door's names that the core also offers are the same objects.
    shared = set(core.__all__) & set(tooldeck.__all__)
    assert shared and all(getattr(core, n) is getattr(tooldeck, n) for n in shared)


def test_the_inspect_package_is_pinned_and_every_name_resolves() -> None:
    import tooldeck.inspect as inspect_pkg

    assert sorted(inspect_pkg.__all__) == ["InspectorApi", "PageApprover", "inspect_app", "serve_app"]
    for name in inspect_pkg.__all__:
        assert getattr(inspect_pkg, name) is not None


def test_the_serve_package_is_pinned_and_every_name_resolves() -> None:
    import tooldeck.serve as serve_pkg
    from tooldeck import core
    from tooldeck.serve.config import ServeConfig

    assert sorted(serve_pkg.__all__) == [
        "ClientState",
        "DeckServer",
        "ListenError",
        "ServeConfig",
        "ServedDeck",
        "http_app",
        "serve_http",
        "serve_stdio",
    ]
    for name in serve_pkg.__all__:
        assert getattr(serve_pkg, name) is not None
    # The serve section's public home is the serve package, not the core's face.
    assert serve_pkg.ServeConfig is ServeConfig and "ServeConfig" not in core.__all__
