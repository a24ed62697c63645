"""`tooldeck.yaml`: the configuration (spec "Config").

The sections are frozen dataclasses, cheap to build in code (`Config(platform="cli", ...)`);
a config read from YAML or a dict is validated by pydantic (`parse_config`, `load_config`),
imported only then, so a program that builds its config in code never pays for it.
Unknown keys are errors naming their path; `${VAR}` in any string is replaced from the
environment before validation, and a missing variable is an error naming it and its path.
Every problem becomes a `ConfigError` whose message starts with the key path.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from tooldeck.errors import ConfigError

if TYPE_CHECKING:
    # Bounds in the annotations below stay strings until pydantic reads them: `_adapter` puts
    # these names into the module first, so building a config in code never imports them.
    from annotated_types import Ge, Gt

# pydantic reads this from each section: unknown keys are errors.
_FORBID: Any = {"extra": "forbid"}
USE_PATTERN = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


@dataclass(frozen=True)
class ToolsetConfig:
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
    __pydantic_config__ = _FORBID
    kind: Literal["none", "bwrap"] = "none"
    allow_host_shell: bool = False
    workspace: str = "."


@dataclass(frozen=True)
class ApprovalsConfig:
    __pydantic_config__ = _FORBID
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
class ChecksConfig:
    __pydantic_config__ = _FORBID
    ttl_s: Annotated[float, Ge(0)] = 30.0
    budget_ms: Annotated[float, Gt(0)] = 1000.0
    # A check that raises or times out keeps its last good answer this long (flap grace).
    flap_grace_s: Annotated[float, Ge(0)] = 60.0


@dataclass(frozen=True)
class ExecutionConfig:
    __pydantic_config__ = _FORBID
    default_timeout_s: Annotated[float, Gt(0)] = 120.0
    max_concurrency: Annotated[int, Ge(1)] = 8
    max_result_chars: Annotated[int, Ge(1)] = 100_000


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
    """The whole of `tooldeck.yaml`."""

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
    checks: ChecksConfig = field(default_factory=ChecksConfig)
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    dialects: DialectsConfig = field(default_factory=DialectsConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    home: str | None = None
    strict: bool = False
    # Where the file was read from (not a YAML key): relative paths resolve against it.
    base_dir: str | None = None

    def resolve_path(self, value: str) -> Path:
        """A path from the config, relative to the config file's folder."""
        path = Path(os.path.expanduser(value))
        if not path.is_absolute() and self.base_dir:
            path = Path(self.base_dir) / path
        return path

    def replace(self, **changes: Any) -> Config:
        """A copy with some top-level keys changed (not validated; see `parse_config`)."""
        return dataclasses.replace(self, **changes)


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
    """Validate a config mapping (already parsed from YAML) with pydantic."""
    from pydantic import ValidationError

    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"the config must be a mapping of keys, got {type(data).__name__}")
    if "base_dir" in data:
        raise ConfigError("unknown key", path="base_dir")
    data = interpolate(data, os.environ if env is None else env)
    try:
        config: Config = _adapter().validate_python({**data, "base_dir": base_dir})
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    for i, entry in enumerate(config.tools):
        if not USE_PATTERN.fullmatch(entry.use):
            raise ConfigError(
                f"must look like 'package.module:attribute', got {entry.use!r}", path=f"tools[{i}].use"
            )
    return config


_ADAPTER: Any = None


def _adapter() -> Any:
    global _ADAPTER
    if _ADAPTER is None:
        import annotated_types
        from pydantic import TypeAdapter

        globals().update(Ge=annotated_types.Ge, Gt=annotated_types.Gt)
        _ADAPTER = TypeAdapter(Config)
    return _ADAPTER


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


def _describe(exc: Any) -> str:
    """pydantic's errors as `key.path: message` lines (union branches folded)."""
    lines: list[str] = []
    errors = list(exc.errors())
    # For `dict | str` keys (mcp_servers), an error inside the dict branch makes the str branch noise.
    tagged = {
        tuple(e["loc"][:1]) for e in errors if len(e["loc"]) > 2 and str(e["loc"][1]).startswith("dict[")
    }
    errors = [
        e
        for e in errors
        if not (len(e["loc"]) == 2 and e["loc"][1] == "str" and tuple(e["loc"][:1]) in tagged)
    ]
    for err in errors:
        loc = ""
        for part in err["loc"]:
            loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
        # pydantic puts union members / function-validator tags into the path; drop them.
        loc = re.sub(r"\.(function-[a-z]+\[[^\]]*\]|str|dict\[str,McpServerConfig\])", "", loc)
        unknown = err["type"] in ("extra_forbidden", "unexpected_keyword_argument")
        msg = "unknown key" if unknown else err["msg"]
        lines.append(f"{loc or '(top level)'}: {msg}")
    return "; ".join(lines)
