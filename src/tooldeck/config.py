"""`tooldeck.yaml`: the configuration, as pydantic models (spec "Config").

Unknown keys are errors naming their path; `${VAR}` in any string is replaced from the
environment before validation, and a missing variable is an error naming it and its path.
`load_config` turns every problem into a `ConfigError` whose message starts with the key path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tooldeck.errors import ConfigError


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolsetConfig(_Model):
    description: str = ""
    tools: list[str] = Field(default_factory=list)
    includes: list[str] = Field(default_factory=list)


class ToolEntry(_Model):
    """A DeerFlow-style `tools:` entry: `use: package.module:attribute` plus options."""

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
    timeout: float | None = Field(default=None, gt=0)
    max_result_chars: int | None = Field(default=None, ge=1)
    shell: bool | None = None
    needs_vision: bool | None = None
    defer: bool | None = None

    @field_validator("use")
    @classmethod
    def _use_shape(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*", value):
            raise ValueError(f"must look like 'package.module:attribute', got {value!r}")
        return value

    def options(self) -> dict[str, Any]:
        """The tool options this entry sets (unset ones are left to the tool)."""
        skip = {"use", "name"}
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k not in skip}


class ModelConfig(_Model):
    provider: Literal["openai", "responses", "anthropic"] = "openai"
    name: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    supports_vision: bool = False
    context_window: int | None = Field(default=None, ge=1)
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = None
    stream: bool = False
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=3, ge=0)


class SandboxConfig(_Model):
    kind: Literal["none", "bwrap"] = "none"
    allow_host_shell: bool = False
    workspace: str = "."


class ApprovalsConfig(_Model):
    mode: Literal["ask", "deny", "allow"] = "ask"


class ToolSearchConfig(_Model):
    enabled: bool = False
    # What to defer: "mcp" (every MCP tool), toolset names, tool names or glob patterns.
    defer: list[str] = Field(default_factory=lambda: ["mcp"])


class SkillConfig(_Model):
    name: str
    allowed_tools: list[str] | None = None
    active: bool = True
    description: str = ""


class ChecksConfig(_Model):
    ttl_s: float = Field(default=30.0, ge=0)
    budget_ms: float = Field(default=1000.0, gt=0)
    # A check that raises or times out keeps its last good answer this long (flap grace).
    flap_grace_s: float = Field(default=60.0, ge=0)


class ExecutionConfig(_Model):
    default_timeout_s: float = Field(default=120.0, gt=0)
    max_concurrency: int = Field(default=8, ge=1)
    max_result_chars: int = Field(default=100_000, ge=1)


class OpenAIDialectConfig(_Model):
    strict: bool = False


class DialectsConfig(_Model):
    openai: OpenAIDialectConfig = Field(default_factory=OpenAIDialectConfig)


class AgentConfig(_Model):
    max_iterations: int = Field(default=90, ge=1)
    system_prompt: str | None = None
    delegation_max_concurrency: int = Field(default=3, ge=1)
    delegation_timeout_s: float = Field(default=600.0, gt=0)
    # Sub-agents' own iteration budget (default: max_iterations).
    delegation_max_iterations: int | None = Field(default=None, ge=1)
    # The session database; relative to the config file; default <home>/state.db.
    sessions_db: str | None = None
    # Size caps of MEMORY.md and USER.md in the tooldeck home, in characters.
    memory_max_chars: int = Field(default=2200, ge=100)
    user_max_chars: int = Field(default=1375, ge=100)


class McpServerConfig(_Model):
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: Literal["stdio", "http", "sse"] | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_s: float = Field(default=30.0, gt=0)
    enabled: bool = True


class PluginsConfig(_Model):
    enabled: bool = True
    disabled: list[str] = Field(default_factory=list)


class Config(_Model):
    """The whole of `tooldeck.yaml`."""

    platform: str = "cli"
    platform_toolsets: dict[str, list[str]] = Field(default_factory=dict)
    disabled_toolsets: list[str] = Field(default_factory=list)
    toolsets: dict[str, ToolsetConfig] = Field(default_factory=dict)
    tools: list[ToolEntry] = Field(default_factory=list)
    tool_groups: list[str] | None = None
    discover: list[str] = Field(default_factory=list)
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    approvals: ApprovalsConfig = Field(default_factory=ApprovalsConfig)
    mcp_servers: dict[str, McpServerConfig] | str = Field(default_factory=dict)
    tool_search: ToolSearchConfig = Field(default_factory=ToolSearchConfig)
    skills: list[SkillConfig] = Field(default_factory=list)
    checks: ChecksConfig = Field(default_factory=ChecksConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    dialects: DialectsConfig = Field(default_factory=DialectsConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    home: str | None = None
    strict: bool = False
    # Where the file was read from (not a YAML key): relative paths resolve against it.
    base_dir: str | None = Field(default=None, exclude=True)

    def resolve_path(self, value: str) -> Path:
        """A path from the config, relative to the config file's folder."""
        path = Path(os.path.expanduser(value))
        if not path.is_absolute() and self.base_dir:
            path = Path(self.base_dir) / path
        return path


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def interpolate(value: Any, env: Mapping[str, str], path: str = "") -> Any:
    """Replace `${VAR}` (or `${VAR:-default}`) in every string; a missing VAR is a ConfigError."""
    if isinstance(value, str):

        def sub(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in env:
                return env[name]
            if default is not None:
                return default
            raise ConfigError(
                f"environment variable {name} is not set (used as ${{{name}}})", path=path or None
            )

        return _VAR.sub(sub, value)
    if isinstance(value, Mapping):
        return {k: interpolate(v, env, _join(path, str(k))) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def parse_config(data: Any, *, env: Mapping[str, str] | None = None, base_dir: str | None = None) -> Config:
    """Validate a config mapping (already parsed from YAML)."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"the config must be a mapping of keys, got {type(data).__name__}")
    data = interpolate(data, os.environ if env is None else env)
    try:
        return Config.model_validate({**data, "base_dir": base_dir})
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None


def load_config(path: str | Path | None = None) -> Config:
    """Read `path`, or `./tooldeck.yaml` when present, or return the built-in defaults."""
    import yaml

    if path is None:
        default = Path("tooldeck.yaml")
        if not default.exists():
            return Config(base_dir=str(Path.cwd()))
        path = default
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}: invalid YAML{where}: {problem}") from None
    return parse_config(data, base_dir=str(path.resolve().parent))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = ""
        for part in err["loc"]:
            loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
        # pydantic puts union members / function-validator tags into the path; drop them.
        loc = re.sub(r"\.(function-[a-z]+\[[^\]]*\]|str|dict\[str,McpServerConfig\])", "", loc)
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        lines.append(f"{loc or '(top level)'}: {msg}")
    return "; ".join(lines)
