"""`tooldeck.yaml`: the configuration, one validated model whichever way it is built.

The sections are frozen dataclasses validated by pydantic: `Config(...)` in code, `parse_config`
on a mapping and `load_config` on a file all run the same validation, and every problem is a
`ConfigError` whose message starts with the key path (``sandbox.kind``, ``tools[2].use``).
Unknown keys are errors; `${VAR}` in any string read from a file or mapping is replaced from the
environment, and a missing variable is an error naming it and its key path. Keys whose feature
is not built yet are refused with a message saying so.

pydantic is imported only when something is validated (see `config_load.py`). A file whose
validated form is already in the config cache loads without it, which keeps `tooldeck tools`
fast.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

if TYPE_CHECKING:
    # Bounds in the annotations below stay strings until pydantic reads them: the validator puts
    # these names into this module first, so importing the config never imports them.
    from annotated_types import Ge, Gt

# pydantic reads this from each section: unknown keys are errors.
_FORBID: Any = {"extra": "forbid"}


@dataclass(frozen=True)
class ToolsetConfig:
    """A user-defined toolset: tool names plus other toolsets it includes."""

    __pydantic_config__ = _FORBID
    description: str = ""
    tools: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ToolEntry:
    """A DeerFlow-style `tools:` entry: `use: package.module:attribute` plus options."""

    __pydantic_config__ = _FORBID
    use: str
    name: str | None = None
    group: str | None = None
    toolset: str | None = None
    requires_env: list[str] | None = None
    requires_bins: list[str] | None = None
    requires_modules: list[str] | None = None
    interactive: bool | None = None
    sequential: bool | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    requires_approval: bool | None = None
    timeout: Annotated[float, Gt(0)] | None = None
    max_result_chars: Annotated[int, Ge(1)] | None = None
    shell: bool | None = None
    needs_vision: bool | None = None
    defer: bool | None = None

    def options(self) -> dict[str, Any]:
        """The tool options this entry sets (unset ones are left to the tool)."""
        skip = {"use", "name"}
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in skip and getattr(self, f.name) is not None
        }


@dataclass(frozen=True)
class ModelConfig:
    """The model the agent talks to."""

    __pydantic_config__ = _FORBID
    provider: Literal["openai", "responses", "anthropic"] = "openai"
    name: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    supports_vision: bool = False
    max_tokens: Annotated[int, Ge(1)] | None = None
    temperature: float | None = None
    stream: bool = False
    # Seconds one model request may take, and how often a failed request is retried (429, 5xx,
    # timeouts, dropped connections): an endpoint that hangs fails after about 3 minutes.
    timeout_s: Annotated[float, Gt(0)] = 60.0
    max_retries: Annotated[int, Ge(0)] = 2


@dataclass(frozen=True)
class SandboxConfig:
    """Where file and shell tools may act, and how shell commands are confined."""

    __pydantic_config__ = _FORBID
    # "bwrap": shell tools are offered when bubblewrap works here. "none": no sandbox is
    # required, so shell tools need allow_host_shell. Either way a command runs inside
    # bubblewrap whenever it works here, and on the host only with allow_host_shell.
    kind: Literal["none", "bwrap"] = "none"
    allow_host_shell: bool = False
    # The root the file tools are confined to, and the one folder shell commands may write;
    # relative to the config file's folder.
    workspace: str = "."
    # Sandboxed commands reach the network (loopback included) only when this is true.
    network: bool = False


ApprovalMode = Literal["ask", "deny", "allow"]

# Per-tool approval modes that apply unless `approvals.tools` says otherwise. The built-in file
# edits are destructive but confined to the workspace, so, as in most coding agents, they run
# without asking; set them to "ask" to be asked about every edit.
DEFAULT_TOOL_APPROVALS: dict[str, ApprovalMode] = {"write_file": "allow", "patch": "allow"}


@dataclass(frozen=True)
class ApprovalsConfig:
    """Consent for what needs it: shell commands a rule flags, destructive tools, and tools
    marked requires_approval."""

    __pydantic_config__ = _FORBID
    # What needs approval gets: asked (ask), refused (deny) or run (allow). Blocked shell
    # commands are refused whatever the mode.
    mode: ApprovalMode = "ask"
    # Seconds a prompt or an approval callback may take to answer; no answer in time is a no.
    timeout_s: Annotated[float, Gt(0)] = 300.0
    # The audit log of approval decisions (JSON lines); relative to the config file's folder;
    # default <home>/approvals.jsonl.
    audit_log: str | None = None
    # Per-tool modes (a tool name or a glob such as "mcp__github__*") over `mode` and over
    # DEFAULT_TOOL_APPROVALS; the exact name wins, then the first matching glob.
    tools: dict[str, ApprovalMode] = field(default_factory=dict)


@dataclass(frozen=True)
class ShellConfig:
    """Levels of the shell analyser's rules: ids or categories moved to `block` (never runnable)
    or to `approve` (runnable with consent). `tooldeck shell-check` shows the verdicts."""

    __pydantic_config__ = _FORBID
    block: list[str] = field(default_factory=list)
    approve: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ToolSearchConfig:
    __pydantic_config__ = _FORBID
    enabled: bool = False
    # What to defer: "mcp" (every MCP tool), toolset names, tool names or glob patterns.
    defer: list[str] = field(default_factory=lambda: ["mcp"])


@dataclass(frozen=True)
class SkillConfig:
    __pydantic_config__ = _FORBID
    name: str
    allowed_tools: list[str] | None = None
    active: bool = True
    description: str = ""


@dataclass(frozen=True)
class ChecksConfig:
    __pydantic_config__ = _FORBID
    ttl_s: Annotated[float, Ge(0)] = 30.0
    budget_ms: Annotated[float, Gt(0)] = 1000.0
    # A check that raises or times out keeps its last good answer this long (flap grace).
    flap_grace_s: Annotated[float, Ge(0)] = 60.0


@dataclass(frozen=True)
class ExecutionConfig:
    """How tool calls run."""

    __pydantic_config__ = _FORBID
    # Seconds a call may run when its tool sets no `timeout`.
    default_timeout_s: Annotated[float, Gt(0)] = 120.0
    # An upper bound on every call's timeout, even a tool's own.
    max_timeout_s: Annotated[float, Gt(0)] | None = None
    # Calls of one batch running at the same time.
    max_concurrency: Annotated[int, Ge(1)] = 8
    # Result size (characters) above which a result is cut and kept aside; a tool may set its own.
    max_result_chars: Annotated[int, Ge(1)] = 100_000
    # Accept `Read-File` for `read_file` when exactly one tool matches (the result says so).
    normalize_names: bool = True

    def timeout_for(self, tool_timeout: float | None) -> float:
        timeout = tool_timeout or self.default_timeout_s
        return min(timeout, self.max_timeout_s) if self.max_timeout_s is not None else timeout


@dataclass(frozen=True)
class OpenAIDialectConfig:
    __pydantic_config__ = _FORBID
    strict: bool = False


@dataclass(frozen=True)
class DialectsConfig:
    __pydantic_config__ = _FORBID
    openai: OpenAIDialectConfig = field(default_factory=OpenAIDialectConfig)


@dataclass(frozen=True)
class AgentConfig:
    """The agent loop and its agent-level tools."""

    __pydantic_config__ = _FORBID
    max_iterations: Annotated[int, Ge(1)] = 90
    system_prompt: str | None = None
    delegation_max_concurrency: Annotated[int, Ge(1)] = 3
    delegation_timeout_s: Annotated[float, Gt(0)] = 600.0
    # Sub-agents' own iteration budget (default: max_iterations).
    delegation_max_iterations: Annotated[int, Ge(1)] | None = None
    # The session database; relative to the config file; default <home>/state.db.
    sessions_db: str | None = None
    # Size caps of MEMORY.md and USER.md in the tooldeck home, in characters.
    memory_max_chars: Annotated[int, Ge(100)] = 2200
    user_max_chars: Annotated[int, Ge(100)] = 1375


@dataclass(frozen=True)
class McpServerConfig:
    __pydantic_config__ = _FORBID
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: Literal["stdio", "http", "sse"] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: Annotated[float, Gt(0)] = 30.0
    enabled: bool = True


@dataclass(frozen=True)
class PluginsConfig:
    __pydantic_config__ = _FORBID
    enabled: bool = True
    disabled: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Config:
    """The whole of `tooldeck.yaml`. Building one validates it (a `ConfigError` names the key)."""

    __pydantic_config__ = _FORBID
    platform: str = "cli"
    platform_toolsets: dict[str, list[str]] = field(default_factory=dict)
    disabled_toolsets: list[str] = field(default_factory=list)
    toolsets: dict[str, ToolsetConfig] = field(default_factory=dict)
    tools: list[ToolEntry] = field(default_factory=list)
    tool_groups: list[str] | None = None
    discover: list[str] = field(default_factory=list)
    plugins: PluginsConfig = field(default_factory=PluginsConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    approvals: ApprovalsConfig = field(default_factory=ApprovalsConfig)
    shell: ShellConfig = field(default_factory=ShellConfig)
    mcp_servers: dict[str, McpServerConfig] | str = field(default_factory=dict)
    tool_search: ToolSearchConfig = field(default_factory=ToolSearchConfig)
    skills: list[SkillConfig] = field(default_factory=list)
    web: dict[str, Any] = field(default_factory=dict)
    acp_agents: dict[str, Any] = field(default_factory=dict)
    checks: ChecksConfig = field(default_factory=ChecksConfig)
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    dialects: DialectsConfig = field(default_factory=DialectsConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    # The tooldeck home (sessions, memory, spilled results); default $TOOLDECK_HOME or ~/.tooldeck.
    home: str | None = None
    strict: bool = False
    # Where the file was read from (not a YAML key): relative paths resolve against it.
    base_dir: str | None = None

    def __post_init__(self) -> None:
        from tooldeck.config_load import validate_instance

        validate_instance(self)

    def resolve_path(self, value: str) -> Path:
        """A path from the config, relative to the config file's folder."""
        path = Path(os.path.expanduser(value))
        if not path.is_absolute() and self.base_dir:
            path = Path(self.base_dir) / path
        return path

    @property
    def workspace(self) -> Path:
        """The workspace root, resolved against the config file's folder."""
        return self.resolve_path(self.sandbox.workspace)

    def replace(self, **changes: Any) -> Config:
        """A validated copy with some top-level keys changed."""
        return dataclasses.replace(self, **changes)

    def with_section(self, section: str, **changes: Any) -> Config:
        """A validated copy with some keys of one section changed: `with_section("execution", max_concurrency=2)`."""
        current: Any = getattr(self, section)
        if not dataclasses.is_dataclass(current) or isinstance(current, type):
            raise TypeError(f"{section!r} is not a config section")
        updated: Any = dataclasses.replace(current, **changes)
        return dataclasses.replace(self, **{section: updated})
