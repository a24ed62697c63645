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
    context_window: Annotated[int, Ge(1)] | None = None
    max_tokens: Annotated[int, Ge(1)] | None = None
    temperature: float | None = None
    stream: bool = False
    timeout_s: Annotated[float, Gt(0)] = 120.0
    max_retries: Annotated[int, Ge(0)] = 3


@dataclass(frozen=True)
class SandboxConfig:
    """Where file and shell tools may act."""

    __pydantic_config__ = _FORBID
    kind: Literal["none", "bwrap"] = "none"
    allow_host_shell: bool = False
    # The root the file tools are confined to; relative to the config file's folder.
    workspace: str = "."


@dataclass(frozen=True)
class ApprovalsConfig:
    __pydantic_config__ = _FORBID
    # What tools that need approval get: asked (ask), refused (deny) or run (allow).
    mode: Literal["ask", "deny", "allow"] = "ask"


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
class WebSearchConfig:
    """Which search service `web_search` asks; without a provider the tool is hidden."""

    __pydantic_config__ = _FORBID
    provider: Literal["searxng", "brave", "tavily", "exa"] | None = None
    # SearXNG: the instance's address (required). Others: overrides the service's API address.
    url: str | None = None
    # The API key itself (write it as "${VAR}"), or the env var holding it (default per
    # provider: BRAVE_API_KEY, TAVILY_API_KEY, EXA_API_KEY), read when the tool is checked.
    api_key: str | None = None
    api_key_env: str | None = None
    timeout_s: Annotated[float, Gt(0)] = 15.0
    # The most results one call may ask for.
    max_results: Annotated[int, Ge(1)] = 10


@dataclass(frozen=True)
class BrowserConfig:
    """The browser the `browser_*` tools drive (Playwright over Chromium)."""

    __pydantic_config__ = _FORBID
    # A Chromium executable; default: chromium on PATH, else Playwright's own browser.
    executable: str | None = None
    headless: bool = True
    # Seconds one browser action (navigation, click, ...) may take.
    timeout_s: Annotated[float, Gt(0)] = 30.0
    # Extra Chromium command-line flags.
    args: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WebConfig:
    """The web tools: fetching, search, the browser, and which addresses they may reach."""

    __pydantic_config__ = _FORBID
    # Private, loopback, link-local and cloud-metadata addresses are refused unless this is true.
    allow_private_networks: bool = False
    # Networks reachable even when private ("10.1.2.0/24", "127.0.0.1"), for a known intranet host.
    allowed_networks: list[str] = field(default_factory=list)
    # web_extract: URLs per call, seconds per URL, bytes downloaded and characters returned per URL.
    max_urls: Annotated[int, Ge(1)] = 5
    timeout_s: Annotated[float, Gt(0)] = 20.0
    max_bytes: Annotated[int, Ge(1)] = 5_000_000
    max_chars: Annotated[int, Ge(100)] = 40_000
    max_redirects: Annotated[int, Ge(0)] = 5
    user_agent: str = "Mozilla/5.0 (compatible; tooldeck; +https://pypi.org/project/tooldeck/)"
    search: WebSearchConfig = field(default_factory=WebSearchConfig)
    browser: BrowserConfig = field(default_factory=BrowserConfig)


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
    mcp_servers: dict[str, McpServerConfig] | str = field(default_factory=dict)
    tool_search: ToolSearchConfig = field(default_factory=ToolSearchConfig)
    skills: list[SkillConfig] = field(default_factory=list)
    # Folders holding Agent Skills (one sub-folder with a SKILL.md per skill); relative to the
    # config file's folder.
    skills_dirs: list[str] = field(default_factory=list)
    web: WebConfig = field(default_factory=WebConfig)
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
