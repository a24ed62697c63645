"""Validating the configuration: pydantic for types, bounds and unknown keys, then the checks
of what types cannot say (a `use:` reference's form, a platform that is not defined).

Below `config.py`: `Config(...)` runs `validate_instance` on itself, and the validator is handed
the class it validates as, so it never imports `Config` (`config_load.py`, above both, reads
files and mappings).
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tooldeck._core import config_mcp
from tooldeck._core.config_mcp import AcpAgentConfig, McpServerConfig
from tooldeck._core.config_platforms import check_platforms
from tooldeck._core.config_sections import ConfigSection, SandboxConfig
from tooldeck._core.tool_names import NAME_PATTERN as TOOL_NAME
from tooldeck.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# Set while pydantic builds a Config from data it has just validated: its __post_init__ must not
# validate again.
_TRUSTED: ContextVar[bool] = ContextVar("tooldeck_config_trusted", default=False)
_ADAPTERS: dict[type[Any], Any] = {}
C = TypeVar("C", bound="ConfigLike")


class ConfigLike(Protocol):
    """What the checks read of a `Config` (the class itself is above this module)."""

    @property
    def sandbox(self) -> SandboxConfig: ...
    @property
    def acp_agents(self) -> dict[str, AcpAgentConfig]: ...
    @property
    def platform(self) -> str: ...
    @property
    def platform_toolsets(self) -> dict[str, list[str]]: ...
    @property
    def mcp_servers(self) -> dict[str, McpServerConfig] | str: ...
    @property
    def workspace(self) -> Path: ...
    def resolve_path(self, value: str) -> Path: ...


def validate_instance(config: Any) -> None:
    """Validate a Config built in code, in place (its fields take their validated values).

    `config` is any `Config`: the class is above this module, and validation is done as its own
    type."""
    if _TRUSTED.get() or _all_defaults(config):
        return
    data = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    data = {k: _plain(v) for k, v in data.items()}
    checked = validated(type(config), data)
    for f in dataclasses.fields(config):
        object.__setattr__(config, f.name, getattr(checked, f.name))


def _all_defaults(config: DataclassInstance) -> bool:
    """True when every key has its default value (valid by construction: no need for pydantic)."""
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.name in ("base_dir", "config_file"):
            if value is not None and not isinstance(value, str):
                return False
            continue
        if f.default is not dataclasses.MISSING:
            if value is not f.default and value != f.default:
                return False
        elif f.default_factory is not dataclasses.MISSING and value != f.default_factory():
            return False
    return True


def interpolate(
    value: Any, env: Mapping[str, str], path: str = "", *, seen: dict[str, str | None] | None = None
) -> Any:
    """Replace `${VAR}` (or `${VAR:-default}`) in every string; a missing VAR is a ConfigError.

    `seen` collects the variables read and their values (None when unset), for the cache key.
    """
    if isinstance(value, str):

        def sub(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = env.get(name)
            if seen is not None:
                seen[name] = found
            if found is not None:
                return found
            if default is not None:
                return default
            raise ConfigError(
                f"environment variable {name} is not set (used as ${{{name}}})", path=path or None
            )

        return _VAR.sub(sub, value) if "${" in value else value
    if isinstance(value, Mapping):
        return {k: interpolate(v, env, _join(path, str(k)), seen=seen) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env, f"{path}[{i}]", seen=seen) for i, v in enumerate(value)]
    return value


def validated(cls: type[C], data: Mapping[str, Any]) -> C:
    """`data` validated as `cls` (the `Config` class), then checked for what types cannot say."""
    from pydantic import ValidationError

    token = _TRUSTED.set(True)
    try:
        config: C = adapter(cls).validate_python(dict(data))
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    finally:
        _TRUSTED.reset(token)
    _check_meaning(config)
    return config


def _check_meaning(config: ConfigLike) -> None:
    """What the types cannot say; each problem names its key path. Each section checks itself
    (`check`, next to its fields); what spans sections or needs the config file's folder is here."""
    check_sections(config, "")
    for name in config.acp_agents:
        if not TOOL_NAME.match(name):
            raise ConfigError(
                "an ACP agent's name becomes its tool name: letters, digits, '_' and '-', starting with a "
                f"letter or '_', at most 64 characters; got {name!r}",
                path=f"acp_agents.{name}",
            )
    check_platforms(config)
    mcp_server_configs(config)
    _check_workspace(config)


def check_sections(value: Any, key: str) -> None:
    """`check` of every section in `value` (a section, or a list or mapping of them), nested ones
    after the one holding them, each given its key path."""
    if isinstance(value, ConfigSection):
        if key:
            value.check(key)
        for f in dataclasses.fields(value):
            check_sections(getattr(value, f.name), _join(key, f.name))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_sections(item, f"{key}[{i}]")
    elif isinstance(value, dict):
        for name, item in value.items():
            check_sections(item, f"{key}.{name}")


SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")


# Spellings of the transport that `mcpServers` files in the wild use for `type`.
_JSON_TRANSPORTS = {"streamable-http": "http", "streamable_http": "http", "streamableHttp": "http"}


def mcp_server_configs(config: ConfigLike) -> dict[str, McpServerConfig]:
    """The configured MCP servers, checked; `mcp_servers` may name an `mcpServers` JSON file.

    The file is read each time (it is not part of the cached config), with `${VAR}` replaced;
    problems name the key as `mcp_servers(file.json).server.key`.
    """
    servers = config.mcp_servers
    prefix = "mcp_servers"
    if isinstance(servers, str):
        path = config.resolve_path(servers)
        prefix = f"mcp_servers({servers})"
        servers = _read_mcp_file(path, prefix)
    for name, server in servers.items():
        _check_mcp_server(name, server, f"{prefix}.{name}")
    return servers


def _read_mcp_file(path: Path, prefix: str) -> dict[str, McpServerConfig]:
    import json

    from pydantic import TypeAdapter, ValidationError

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", path="mcp_servers") from None
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}", path="mcp_servers") from None
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ConfigError(f"{path} has no 'mcpServers' object", path="mcp_servers")
    _install_bounds(config_mcp)
    adapter: Any = TypeAdapter(McpServerConfig)
    out: dict[str, McpServerConfig] = {}
    for name, entry in entries.items():
        where = f"{prefix}.{name}"
        if not isinstance(entry, dict):
            raise ConfigError(f"must be an object, got {type(entry).__name__}", path=where)
        entry = dict(interpolate(entry, os.environ, where))
        if "type" in entry and "transport" not in entry:
            kind = entry.pop("type")
            entry["transport"] = _JSON_TRANSPORTS.get(kind, kind)
        if "disabled" in entry and "enabled" not in entry:
            entry["enabled"] = not entry.pop("disabled")
        try:
            out[str(name)] = adapter.validate_python(entry)
        except ValidationError as exc:
            raise ConfigError(_describe(exc, prefix=where)) from None
    return out


def _check_mcp_server(name: str, server: McpServerConfig, where: str) -> None:
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(
            "a server name is letters, digits, '_', '.' and '-' (at most 48, starting with a letter or digit)",
            path=where,
        )
    server.check(where)


def _check_workspace(config: ConfigLike) -> None:
    """A workspace that is the whole file system confines nothing: the file tools would read
    every file of the machine and shell commands write anywhere. Symbolic links count."""
    if os.path.realpath(config.workspace) == os.path.realpath("/"):
        raise ConfigError(
            f"{config.sandbox.workspace!r} is the root of the file system (/): the file and shell "
            "tools would reach the whole machine; name the project's folder instead",
            path="sandbox.workspace",
        )


def _plain(value: Any) -> Any:
    """Sections built in code as dataclass instances, as mappings pydantic validates field by field."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def adapter(cls: type[Any]) -> Any:
    """The pydantic adapter of `cls` (built once; it also gives the JSON Schema)."""
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        from pydantic import TypeAdapter

        for module in _section_modules():
            _install_bounds(module)
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def _section_modules() -> set[ModuleType]:
    """The modules defining config sections (the core's and the satellites' own)."""
    found: set[ModuleType] = set()
    todo: list[type] = [ConfigSection]
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        module = sys.modules.get(cls.__module__)
        if module is not None:
            found.add(module)
    return found


def _install_bounds(module: ModuleType) -> None:
    """The numeric bounds the annotations name, put where pydantic resolves them (a module's
    own names of them are left alone)."""
    import annotated_types

    for name in ("Ge", "Gt", "Le"):
        vars(module).setdefault(name, getattr(annotated_types, name))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _describe(exc: Any, *, prefix: str = "") -> str:
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
        if prefix:
            loc = f"{prefix}.{loc}" if loc else prefix
        lines.append(f"{loc or '(top level)'}: {msg}")
    return "; ".join(lines)
