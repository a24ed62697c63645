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

from tooldeck._utils.lazy import lazy_attributes

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
    from tooldeck._core.checkpoints.recording import Recording
    from tooldeck._core.checkpoints.recording import current as current_checkpoint
    from tooldeck._core.checkpoints.undo import UndoReport

    # Config: the whole file and the typed section each component is built with
    from tooldeck._core.config import (
        ApprovalsConfig,
        BrowserConfig,
        CheckpointsConfig,
        Config,
        EffectsConfig,
        ExecutionConfig,
        ModelConfig,
        SandboxConfig,
        ServeConfig,
        WebConfig,
        WebSearchConfig,
    )
    from tooldeck._core.config_load import load_config, parse_config
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
        promote,
        promoted_names,
    )
    from tooldeck._core.execution.approval_store import AlwaysGrants
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
    from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ToolResult
    from tooldeck._core.fs import ConfinedRoot
    from tooldeck._core.fs import scan as scan_folder
    from tooldeck._core.fs.observe import WriteBudget
    from tooldeck._core.fs.observe import current as current_write_budget
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
    from tooldeck._core.tool import DescriptionContext, Resource, Tool

    # The workspace and confined paths
    from tooldeck._core.workspace import Workspace

_LAZY: dict[str, str] = {
    "Tool": "tooldeck._core.tool",
    "DescriptionContext": "tooldeck._core.tool",
    "Resource": "tooldeck._core.tool",
    "Availability": "tooldeck._core.availability_types",
    "ToolContext": "tooldeck._core.context",
    "Approvals": "tooldeck._core.context",
    "service": "tooldeck._core.context",
    "ToolOutput": "tooldeck._core.output",
    "Prompt": "tooldeck._core.prompts",
    "PromptArgument": "tooldeck._core.prompts",
    "PromptMessage": "tooldeck._core.prompts",
    "prompt": "tooldeck._core.prompts",
    "DeclaredResource": "tooldeck._core.resources",
    "resource": "tooldeck._core.resources",
    "CallChannel": "tooldeck._core.execution.call_channel",
    "ToolChannel": "tooldeck._core.channel",
    "Elicitation": "tooldeck._core.channel",
    "ElicitationRequest": "tooldeck._core.channel",
    "LoggingLevel": "tooldeck._core.channel",
    "Sample": "tooldeck._core.channel",
    "LogEntry": "tooldeck._core.channel",
    "ProgressReport": "tooldeck._core.channel",
    "Root": "tooldeck._core.channel",
    "RootsRequest": "tooldeck._core.channel",
    "LOGGING_LEVELS": "tooldeck._core.channel:LEVELS",
    "checked_form_answer": "tooldeck._core.channel:checked_answer",
    "SamplingMessage": "tooldeck._core.channel",
    "SamplingRequest": "tooldeck._core.channel",
    "TaskRequest": "tooldeck._core.channel",
    "AudioContent": "tooldeck._core.content",
    "ContentBlock": "tooldeck._core.content",
    "EmbeddedResource": "tooldeck._core.content",
    "ImageContent": "tooldeck._core.content",
    "ResourceLink": "tooldeck._core.content",
    "TextContent": "tooldeck._core.content",
    "content_from_mcp": "tooldeck._core.content:from_mcp",
    "content_to_mcp": "tooldeck._core.content:to_mcp",
    "tool": "tooldeck._core.decorator",
    "Bounds": "tooldeck._core.decorator",
    "Diagnostic": "tooldeck._core.diagnostics",
    "Source": "tooldeck._core.sources.base",
    "SourceListing": "tooldeck._core.sources.base",
    "ToolSource": "tooldeck._core.sources.base",
    "ChangeKind": "tooldeck._core.sources.base",
    "entry_owner": "tooldeck._core.sources.config_entries",
    "McpSource": "tooldeck._core.sources.mcp",
    "ServerSpec": "tooldeck._core.sources.mcp",
    "ServerStatus": "tooldeck._core.sources.mcp",
    "close_mcp_servers": "tooldeck._core.sources.mcp:close_all",
    "mcp_server_specs": "tooldeck._core.sources.mcp:server_specs",
    "mcp_login": "tooldeck._core.sources.mcp.oauth_login:login",
    "mcp_logout": "tooldeck._core.sources.mcp.oauth_login:logout",
    "Config": "tooldeck._core.config",
    "ModelConfig": "tooldeck._core.config",
    "SandboxConfig": "tooldeck._core.config",
    "ServeConfig": "tooldeck._core.config",
    "ApprovalsConfig": "tooldeck._core.config",
    "ExecutionConfig": "tooldeck._core.config",
    "BrowserConfig": "tooldeck._core.config",
    "WebConfig": "tooldeck._core.config",
    "WebSearchConfig": "tooldeck._core.config",
    "load_config": "tooldeck._core.config_load",
    "parse_config": "tooldeck._core.config_load",
    "config_schema_adapter": "tooldeck._core.config_load:schema_adapter",
    "ControlPlane": "tooldeck._core.control_plane",
    "PathChange": "tooldeck._core.control_plane",
    "Loadout": "tooldeck._core.assembly.loadout",
    "Fate": "tooldeck._core.assembly.loadout",
    "render_loadout": "tooldeck._core.dialects",
    "ToolCost": "tooldeck._core.dialects.report",
    "token_table": "tooldeck._core.dialects.report",
    "tool_costs": "tooldeck._core.dialects.report",
    "PromotedView": "tooldeck._core.disclosure",
    "ToolRendering": "tooldeck._core.disclosure",
    "catalog_hash": "tooldeck._core.disclosure",
    "deferred_catalog": "tooldeck._core.disclosure",
    "deferred_listing": "tooldeck._core.disclosure",
    "promote": "tooldeck._core.disclosure",
    "promoted_names": "tooldeck._core.disclosure",
    "Session": "tooldeck._core.session",
    "ToolCall": "tooldeck._core.execution.types",
    "ToolResult": "tooldeck._core.execution.types",
    "ErrorEnvelope": "tooldeck._core.execution.types",
    "ToolCaller": "tooldeck._core.execution.nested",
    "RunState": "tooldeck._core.run_state",
    "RunStateUpdate": "tooldeck._core.run_state",
    "Promotions": "tooldeck._core.run_state",
    "TodoItem": "tooldeck._core.run_state",
    "TodoStatus": "tooldeck._core.run_state",
    "Approver": "tooldeck._core.execution.policy",
    "ApprovalAnswer": "tooldeck._core.execution.policy",
    "ApprovalRequest": "tooldeck._core.execution.policy",
    "AutoApprover": "tooldeck._core.execution.policy",
    "TerminalApprover": "tooldeck._core.execution.policy",
    "Policy": "tooldeck._core.execution.policy",
    "Grants": "tooldeck._core.execution.policy",
    "AlwaysGrants": "tooldeck._core.execution.approval_store",
    "APPROVAL_PROMPT": "tooldeck._core.execution.policy:PROMPT",
    "describe_request": "tooldeck._core.execution.policy",
    "parse_answer": "tooldeck._core.execution.policy",
    "Workspace": "tooldeck._core.workspace",
    "Checkpoint": "tooldeck._core.checkpoints",
    "CheckpointStore": "tooldeck._core.checkpoints",
    "PathState": "tooldeck._core.checkpoints",
    "CheckpointsConfig": "tooldeck._core.config",
    "EffectsConfig": "tooldeck._core.config",
    "Recording": "tooldeck._core.checkpoints.recording",
    "current_checkpoint": "tooldeck._core.checkpoints.recording:current",
    "UndoReport": "tooldeck._core.checkpoints.undo",
    "WriteBudget": "tooldeck._core.fs.observe",
    "current_write_budget": "tooldeck._core.fs.observe:current",
    "checkpoint_store": "tooldeck._core.checkpoints:store_of",
    "undo_checkpoints": "tooldeck._core.checkpoints:undo_in",
    "ConfinedRoot": "tooldeck._core.fs",
    "scan_folder": "tooldeck._core.fs:scan",
    "Skill": "tooldeck._core.skills.catalog",
    "SkillCatalog": "tooldeck._core.skills.catalog:Catalog",
    "SKILL_FILE": "tooldeck._core.skills.catalog",
    "active_skills": "tooldeck._core.skills.catalog",
    "skill_body": "tooldeck._core.skills.catalog:body",
    "load_skills": "tooldeck._core.skills.catalog:load_catalog",
    "skill_dirs": "tooldeck._core.skills.catalog",
}

__getattr__ = lazy_attributes(__name__, _LAZY, globals())

__all__ = [
    "APPROVAL_PROMPT",
    "LOGGING_LEVELS",
    "SKILL_FILE",
    "AlwaysGrants",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approvals",
    "ApprovalsConfig",
    "Approver",
    "AudioContent",
    "AutoApprover",
    "Availability",
    "Bounds",
    "BrowserConfig",
    "CallChannel",
    "ChangeKind",
    "Checkpoint",
    "CheckpointStore",
    "CheckpointsConfig",
    "Config",
    "ConfinedRoot",
    "ContentBlock",
    "ControlPlane",
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
    "ServeConfig",
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
    "WebConfig",
    "WebSearchConfig",
    "Workspace",
    "WriteBudget",
    "active_skills",
    "catalog_hash",
    "checked_form_answer",
    "checkpoint_store",
    "close_mcp_servers",
    "config_schema_adapter",
    "content_from_mcp",
    "content_to_mcp",
    "current_checkpoint",
    "current_write_budget",
    "deferred_catalog",
    "deferred_listing",
    "describe_request",
    "entry_owner",
    "load_config",
    "load_skills",
    "mcp_login",
    "mcp_logout",
    "mcp_server_specs",
    "parse_answer",
    "parse_config",
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
    "undo_checkpoints",
]
