"""Reading the configuration from a mapping or a file, as a given config class (the core's
model is in `config.py`, its validation in `config_check.py`; the whole file's class,
`tooldeck.Config`, is composed above the core, which hands it to these functions).

`parse_config_as` replaces `${VAR}` and validates; `load_config_as` reads a file, keeping its
validated form in the config cache (`config_cache.py`), so that reading the same file again
under the same environment needs neither YAML nor pydantic.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from tooldeck._core import config_cache, config_check
from tooldeck._core.config import CoreConfig
from tooldeck._core.config_check import interpolate as interpolate
from tooldeck._core.config_check import mcp_server_configs as mcp_server_configs
from tooldeck._core.config_check import validate_instance as validate_instance
from tooldeck._core.config_check import validated
from tooldeck.errors import ConfigError

# Values of `platform_toolsets` entries that select every toolset.
ALL_TOOLSETS = frozenset({"all", "*"})
C = TypeVar("C", bound=CoreConfig)


def parse_config_as(
    kind: type[C], data: Any, *, env: Mapping[str, str] | None = None, base_dir: str | None = None
) -> C:
    """Validate a config mapping (e.g. parsed from YAML) as `kind`; `${VAR}` is read from `env`."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"the config must be a mapping of keys, got {type(data).__name__}")
    for reserved in ("base_dir", "config_file"):
        if reserved in data:
            raise ConfigError("unknown key", path=reserved)
    data = interpolate(data, os.environ if env is None else env)
    return validated(kind, {**data, "base_dir": base_dir})


def load_config_as(kind: type[C], path: str | Path | None = None) -> C:
    """Read `path` as `kind`, or `./tooldeck.yaml` when present, or return the built-in defaults."""
    if path is None:
        default = Path("tooldeck.yaml")
        if not default.exists():
            return kind(base_dir=str(Path.cwd()))
        path = default
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    base_dir = str(path.resolve().parent)
    cached = config_cache.lookup(kind, raw, base_dir)
    if cached is not None:
        return _from_file(cached, path)
    data = _parse_yaml(path, raw)
    seen: dict[str, str | None] = {}
    if isinstance(data, Mapping):
        data = interpolate(data, os.environ, seen=seen)
    config = parse_config_as(
        kind, data, env={k: v for k, v in seen.items() if v is not None}, base_dir=base_dir
    )
    config_cache.store(raw, base_dir, seen, config)
    return _from_file(config, path)


def _from_file(config: C, path: Path) -> C:
    """`config` knowing the file it came from (a fresh object: set in place, not validated again)."""
    object.__setattr__(config, "config_file", str(path.resolve()))
    return config


def _parse_yaml(path: Path, raw: bytes) -> Any:
    from tooldeck._core.config_yaml import load_yaml

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return load_yaml(text, str(path))


def schema_adapter(kind: type[CoreConfig]) -> Any:
    """The pydantic adapter of a config class (for its JSON Schema): `schema_adapter(tooldeck.Config)`."""
    return config_check.adapter(kind)
