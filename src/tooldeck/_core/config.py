"""`tooldeck.yaml`: the configuration, one validated model whichever way it is built.

The core's keys are `CoreConfig`; its sections are frozen dataclasses validated by pydantic
(`config_sections.py`). Each satellite below the front door owns its section in the same way
(`ConfigSection`, `section`), beside its code, and `tooldeck.Config` (`tooldeck/_config.py`)
composes them over `CoreConfig` (`composed` keeps the file's key order). `Config(...)` in code,
`parse_config` on a mapping and `load_config` on a file all run the same validation
(`config_check.py`): pydantic for types and bounds, then each section's own `check`; every
problem is a `ConfigError` whose message starts with the key path (``sandbox.kind``,
``tools[2].use``). Unknown keys are errors; `${VAR}` in any string read from a file or mapping is
replaced from the environment, and a missing variable is an error naming it and its key path.
Keys whose feature is not built yet are refused with a message saying so.

pydantic is imported only when something is validated. A file whose validated form is already
in the config cache loads without it, which keeps `tooldeck tools` fast.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import field
from pathlib import Path
from typing import Any, Self, TypeVar, cast

from tooldeck._core.config_mcp import (
    AcpAgentConfig as AcpAgentConfig,
)
from tooldeck._core.config_mcp import (
    McpServerConfig as McpServerConfig,
)
from tooldeck._core.config_sections import (
    DEFAULT_PLATFORM as DEFAULT_PLATFORM,
)
from tooldeck._core.config_sections import (
    MAX_SECONDS as MAX_SECONDS,
)
from tooldeck._core.config_sections import (
    ApprovalMode as ApprovalMode,
)
from tooldeck._core.config_sections import (
    ApprovalsConfig as ApprovalsConfig,
)
from tooldeck._core.config_sections import (
    CheckpointKeepConfig as CheckpointKeepConfig,
)
from tooldeck._core.config_sections import (
    CheckpointsConfig as CheckpointsConfig,
)
from tooldeck._core.config_sections import (
    ChecksConfig as ChecksConfig,
)
from tooldeck._core.config_sections import (
    ConfigSection as ConfigSection,
)
from tooldeck._core.config_sections import (
    DialectsConfig as DialectsConfig,
)
from tooldeck._core.config_sections import (
    EffectsConfig as EffectsConfig,
)
from tooldeck._core.config_sections import (
    ExecutionConfig as ExecutionConfig,
)
from tooldeck._core.config_sections import (
    MiddlewareEntry as MiddlewareEntry,
)
from tooldeck._core.config_sections import (
    ModelConfig as ModelConfig,
)
from tooldeck._core.config_sections import (
    OpenAIDialectConfig as OpenAIDialectConfig,
)
from tooldeck._core.config_sections import (
    PluginsConfig as PluginsConfig,
)
from tooldeck._core.config_sections import (
    PromptEntry as PromptEntry,
)
from tooldeck._core.config_sections import (
    ReasoningConfig as ReasoningConfig,
)
from tooldeck._core.config_sections import (
    ResourceEntry as ResourceEntry,
)
from tooldeck._core.config_sections import (
    SandboxConfig as SandboxConfig,
)
from tooldeck._core.config_sections import (
    SandboxLimitsConfig as SandboxLimitsConfig,
)
from tooldeck._core.config_sections import (
    ShellConfig as ShellConfig,
)
from tooldeck._core.config_sections import (
    SkillConfig as SkillConfig,
)
from tooldeck._core.config_sections import (
    ToolEntry as ToolEntry,
)
from tooldeck._core.config_sections import (
    ToolSearchConfig as ToolSearchConfig,
)
from tooldeck._core.config_sections import (
    ToolsetConfig as ToolsetConfig,
)
from tooldeck._core.config_sections import (
    section as section,
)

_K = TypeVar("_K", bound=ConfigSection)
_C = TypeVar("_C", bound=type[ConfigSection])


@section
class CoreConfig(ConfigSection):
    """The core's keys of `tooldeck.yaml` (the whole file is `tooldeck.Config`, composed over this
    with the sections the satellites own). Building one validates it (a `ConfigError` names the key)."""

    # The platform whose toolsets are used (overridden by --platform): one that platform_toolsets
    # defines; without platform_toolsets the only platform is cli.
    platform: str = DEFAULT_PLATFORM
    # Toolsets per platform (the keys are the known platforms); `all` or `*` selects every toolset.
    # Without any entry, every toolset is selected.
    platform_toolsets: dict[str, list[str]] = field(default_factory=dict)
    # Toolsets hidden on every platform.
    disabled_toolsets: list[str] = field(default_factory=list)
    # User-defined toolsets by name.
    toolsets: dict[str, ToolsetConfig] = field(default_factory=dict)
    # Tools loaded from Python modules (DeerFlow-style `use:` entries), with options that override the
    # tool's own.
    tools: list[ToolEntry] = field(default_factory=list)
    # When set, only tools whose group (or toolset) is listed are shown.
    tool_groups: list[str] | None = None
    # Packages whose modules are scanned for tools (modules next to the config file are importable).
    discover: list[str] = field(default_factory=list)
    # Tools from installed plugins.
    plugins: PluginsConfig = field(default_factory=PluginsConfig)
    # The model the agent talks to.
    model: ModelConfig = field(default_factory=ModelConfig)
    # Where file and shell tools may act.
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    # What happens to calls that need approval.
    approvals: ApprovalsConfig = field(default_factory=ApprovalsConfig)
    # Shell commands: rules moved between the levels of the shell analysis.
    shell: ShellConfig = field(default_factory=ShellConfig)
    # MCP servers as tool sources (or the path of an `mcpServers` JSON file).
    mcp_servers: dict[str, McpServerConfig] | str = field(default_factory=dict)
    # Deferred tools behind tool_search.
    tool_search: ToolSearchConfig = field(default_factory=ToolSearchConfig)
    # Skills and the tools they allow.
    skills: list[SkillConfig] = field(default_factory=list)
    # Folders holding Agent Skills (one sub-folder with a SKILL.md per skill); relative to the
    # config file's folder.
    skills_dirs: list[str] = field(default_factory=list)
    # ACP agents as tools: each agent becomes one tool (lowest de-dup priority).
    acp_agents: dict[str, AcpAgentConfig] = field(default_factory=dict)
    # Requirement checks.
    checks: ChecksConfig = field(default_factory=ChecksConfig)
    # Checkpoints of what calls change in the workspace, for `tooldeck undo`.
    checkpoints: CheckpointsConfig = field(default_factory=CheckpointsConfig)
    # Shell and code calls run against a copy-on-write view; effects beyond these bounds are held.
    effects: EffectsConfig = field(default_factory=EffectsConfig)
    # How tool calls run.
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    # Middleware around every tool call, outermost first (after any given to `Deck(middleware=)`):
    # each sees the call and its arguments, and may rewrite them, answer itself or change the
    # result, outside tooldeck's links unless placed `before:`/`after:` one. Applies to every path:
    # calls, the agent, serve, batch, execute_code's nested calls.
    middleware: list[MiddlewareEntry] = field(default_factory=list)
    # MCP prompts declared in Python (`@prompt`), which `tooldeck serve` lists before the skills;
    # a declared prompt wins over a skill of the same name.
    prompts: list[PromptEntry] = field(default_factory=list)
    # MCP resources declared in Python (`@resource`: a fixed URI or a URI template), which
    # `tooldeck serve` offers before the workspace's files.
    resources: list[ResourceEntry] = field(default_factory=list)
    # Provider dialect options.
    dialects: DialectsConfig = field(default_factory=DialectsConfig)
    # The tooldeck home (sessions, memory, spilled results); default $TOOLDECK_HOME or ~/.tooldeck.
    home: str | None = None
    # Mistakes in the config itself are errors instead of warnings: unknown toolset names, include
    # cycles, names of tools or groups (skills, approvals.tools, tool_groups, tool_search.defer) that
    # match no tool. An MCP server that fails to connect or a missing folder stays a warning.
    strict: bool = False
    # Where the file was read from (not a YAML key): relative paths resolve against it.
    base_dir: str | None = None
    # The config file itself (not a YAML key): protected from the tools.
    config_file: str | None = None

    def __post_init__(self) -> None:
        from tooldeck._core.config_check import validate_instance

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

    def section(self, kind: type[_K]) -> _K:
        """The section of this type, `config.section(WebConfig)`: how code below the composed
        `Config` (a satellite's tools, the agent) reads the section it owns. A config composed
        without one has its defaults."""
        name = _SECTION_FIELDS.get((type(self), kind))
        if name is None:
            found = [f.name for f in dataclasses.fields(self) if type(getattr(self, f.name)) is kind]
            if len(found) > 1:
                raise TypeError(f"{type(self).__name__} has more than one {kind.__name__}: {found}")
            name = _SECTION_FIELDS[(type(self), kind)] = found[0] if found else ""
        return cast(_K, getattr(self, name)) if name else kind()

    def replace(self, **changes: Any) -> Self:
        """A validated copy with some top-level keys changed."""
        return dataclasses.replace(self, **changes)

    def with_section(self, section: str, **changes: Any) -> Self:
        """A validated copy with some keys of one section changed: `with_section("execution", max_concurrency=2)`."""
        current: Any = getattr(self, section)
        if not dataclasses.is_dataclass(current) or isinstance(current, type):
            raise TypeError(f"{section!r} is not a config section")
        updated: Any = dataclasses.replace(current, **changes)
        return dataclasses.replace(self, **{section: updated})


# (config class, section class) -> the key holding that section ("" for none), found once.
_SECTION_FIELDS: dict[tuple[type, type], str] = {}


def composed(cls: _C) -> _C:
    """`cls` (a `CoreConfig` with more sections, made a section by `@section`) with each key
    named in its `placed_after` mapping moved to just after the key it names, so the composed
    file reads in one order (the reference, the JSON Schema, `tooldeck config`, the repr) whoever
    owns a key."""
    places: dict[str, str] = vars(cls).get("placed_after", {})
    fields = dict(cls.__dataclass_fields__)
    order = [name for name in fields if name not in places]
    for name, after in places.items():
        order.insert(order.index(after) + 1, name)
    cls.__dataclass_fields__ = {name: fields[name] for name in order}
    return cls
