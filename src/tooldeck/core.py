"""The public API of tooldeck's core: what its satellites (the agent loop, the built-in tool
library, serve, batch, the command line) and a team's own satellites build on.

The core itself (`tooldeck._core`: sources, registry, assembly, dialects, session, call path) is
private and may change from one release to the next; the names here are kept (`__all__` is
pinned by a test). A user of the library needs only `tooldeck`; this is for code that builds on
tooldeck the way its own satellites do: an agent loop of one's own, a server, a tool library.
Each name is imported on first use, so importing this module costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

if TYPE_CHECKING:
    # Defining tools
    # The loadout and its rendering for a provider
    from tooldeck._core.assembly.loadout import Fate, Loadout
    from tooldeck._core.availability_types import Availability
    from tooldeck._core.channel import LEVELS as LOGGING_LEVELS
    from tooldeck._core.channel import (
        Elicitation,
        ElicitationRequest,
        LogEntry,
        LoggingLevel,
        ProgressReport,
        Root,
        RootsRequest,
        Sample,
        SamplingMessage,
        SamplingRequest,
        TaskRequest,
        ToolChannel,
    )
    from tooldeck._core.channel import checked_answer as checked_form_answer
    from tooldeck._core.checkpoints import Checkpoint, CheckpointStore, PathState
    from tooldeck._core.checkpoints import store_of as checkpoint_store
    from tooldeck._core.checkpoints import undo_in as undo_checkpoints
    from tooldeck._core.checkpoints.recording import Checkpointed, Recording
    from tooldeck._core.checkpoints.recording import current as current_checkpoint
    from tooldeck._core.checkpoints.undo import UndoReport

    # Config: the whole file and the typed section each component is built with
    # (the whole, `tooldeck.Config`, is composed above the core with the satellites' sections;
    # a satellite defines its own section with `ConfigSection` and `config_section`)
    from tooldeck._core.config import (
        MAX_SECONDS,
        ApprovalsConfig,
        CheckpointsConfig,
        ConfigSection,
        CoreConfig,
        EffectsConfig,
        ExecutionConfig,
        ModelConfig,
        SandboxConfig,
    )
    from tooldeck._core.config import section as config_section
    from tooldeck._core.config_load import schema_adapter as config_schema_adapter
    from tooldeck._core.content import (
        AudioContent,
        ContentBlock,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
    )
    from tooldeck._core.content import from_mcp as content_from_mcp
    from tooldeck._core.content import to_mcp as content_to_mcp
    from tooldeck._core.context import Approvals, ToolContext, service
    from tooldeck._core.control_plane import ControlPlane, PathChange
    from tooldeck._core.decorator import Bounds, tool
    from tooldeck._core.diagnostics import Diagnostic
    from tooldeck._core.dialects import render_loadout
    from tooldeck._core.dialects.report import ToolCost, token_table, tool_costs

    # Deferred tools and `tool_search` promotions
    from tooldeck._core.disclosure import (
        PromotedView,
        ToolRendering,
        catalog_hash,
        deferred_catalog,
        deferred_listing,
        loader_name,
        promote,
        promoted_names,
        toolset_lines,
    )
    from tooldeck._core.execution.approval_store import AlwaysGrants, AuditLog
    from tooldeck._core.execution.call_channel import CallChannel
    from tooldeck._core.execution.nested import ToolCaller
    from tooldeck._core.execution.policy import PROMPT as APPROVAL_PROMPT

    # Approvals
    from tooldeck._core.execution.policy import (
        ApprovalAnswer,
        ApprovalRequest,
        Approver,
        AutoApprover,
        Grants,
        Policy,
        TerminalApprover,
        describe_request,
        parse_answer,
    )
    from tooldeck._core.execution.policy import prompt_for as approval_prompt
    from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ToolResult
    from tooldeck._core.fs import ConfinedRoot
    from tooldeck._core.fs import scan as scan_folder
    from tooldeck._core.fs.observe import WriteBudget
    from tooldeck._core.fs.observe import current as current_write_budget
    from tooldeck._core.mcp_sessions import closing_sessions_opened as closing_mcp_sessions
    from tooldeck._core.output import ToolOutput

    # Prompts and resources declared in Python (served by `tooldeck serve`)
    from tooldeck._core.prompts import Prompt, PromptArgument, PromptMessage, prompt
    from tooldeck._core.resources import DeclaredResource, resource
    from tooldeck._core.run_state import Promotions, RunState, RunStateUpdate, TodoItem, TodoStatus

    # A session and its calls
    from tooldeck._core.session import Session

    # Skills
    from tooldeck._core.skills.catalog import SKILL_FILE, Skill, active_skills, skill_dirs
    from tooldeck._core.skills.catalog import Catalog as SkillCatalog
    from tooldeck._core.skills.catalog import body as skill_body
    from tooldeck._core.skills.catalog import load_catalog as load_skills

    # Sources (a source offers tools; MCP servers are one kind)
    from tooldeck._core.sources.base import ChangeKind, Source, SourceListing, ToolSource
    from tooldeck._core.sources.config_entries import entry_owner
    from tooldeck._core.sources.mcp import McpSource, ServerSpec, ServerStatus
    from tooldeck._core.sources.mcp import close_all as close_mcp_servers
    from tooldeck._core.sources.mcp import server_specs as mcp_server_specs
    from tooldeck._core.sources.mcp.oauth_login import login as mcp_login
    from tooldeck._core.sources.mcp.oauth_login import logout as mcp_logout
    from tooldeck._core.tool import MCP_EXAMPLES_KEY, DescriptionContext, Resource, Tool

    # The workspace and confined paths
    from tooldeck._core.workspace import Workspace

__all__ = [
    "APPROVAL_PROMPT",
    "LOGGING_LEVELS",
    "MAX_SECONDS",
    "MCP_EXAMPLES_KEY",
    "SKILL_FILE",
    "AlwaysGrants",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approvals",
    "ApprovalsConfig",
    "Approver",
    "AudioContent",
    "AuditLog",
    "AutoApprover",
    "Availability",
    "Bounds",
    "CallChannel",
    "ChangeKind",
    "Checkpoint",
    "CheckpointStore",
    "Checkpointed",
    "CheckpointsConfig",
    "ConfigSection",
    "ConfinedRoot",
    "ContentBlock",
    "ControlPlane",
    "CoreConfig",
    "DeclaredResource",
    "DescriptionContext",
    "Diagnostic",
    "EffectsConfig",
    "Elicitation",
    "ElicitationRequest",
    "EmbeddedResource",
    "ErrorEnvelope",
    "ExecutionConfig",
    "Fate",
    "Grants",
    "ImageContent",
    "Loadout",
    "LogEntry",
    "LoggingLevel",
    "McpSource",
    "ModelConfig",
    "PathChange",
    "PathState",
    "Policy",
    "ProgressReport",
    "PromotedView",
    "Promotions",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "Recording",
    "Resource",
    "ResourceLink",
    "Root",
    "RootsRequest",
    "RunState",
    "RunStateUpdate",
    "Sample",
    "SamplingMessage",
    "SamplingRequest",
    "SandboxConfig",
    "ServerSpec",
    "ServerStatus",
    "Session",
    "Skill",
    "SkillCatalog",
    "Source",
    "SourceListing",
    "TaskRequest",
    "TerminalApprover",
    "TextContent",
    "TodoItem",
    "TodoStatus",
    "Tool",
    "ToolCall",
    "ToolCaller",
    "ToolChannel",
    "ToolContext",
    "ToolCost",
    "ToolOutput",
    "ToolRendering",
    "ToolResult",
    "ToolSource",
    "UndoReport",
    "Workspace",
    "WriteBudget",
    "active_skills",
    "approval_prompt",
    "catalog_hash",
    "checked_form_answer",
    "checkpoint_store",
    "close_mcp_servers",
    "closing_mcp_sessions",
    "config_schema_adapter",
    "config_section",
    "content_from_mcp",
    "content_to_mcp",
    "current_checkpoint",
    "current_write_budget",
    "deferred_catalog",
    "deferred_listing",
    "describe_request",
    "entry_owner",
    "load_skills",
    "loader_name",
    "mcp_login",
    "mcp_logout",
    "mcp_server_specs",
    "parse_answer",
    "promote",
    "promoted_names",
    "prompt",
    "render_loadout",
    "resource",
    "scan_folder",
    "service",
    "skill_body",
    "skill_dirs",
    "token_table",
    "tool",
    "tool_costs",
    "toolset_lines",
    "undo_checkpoints",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
