"""Reading the configuration from a mapping or a file (the model is in `config.py`, its
validation in `config_check.py`).

`parse_config` replaces `${VAR}` and validates; `load_config` reads a file, keeping its
validated form in the config cache (`config_cache.py`), so that reading the same file again
under the same environment needs neither YAML nor pydantic.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooldeck._core import config_cache, config_check
from tooldeck._core.config import Config
from tooldeck._core.config_check import interpolate as interpolate
from tooldeck._core.config_check import mcp_server_configs as mcp_server_configs
from tooldeck._core.config_check import validate_instance as validate_instance
from tooldeck._core.config_check import validated
from tooldeck.errors import ConfigError

# Values of `platform_toolsets` entries that select every toolset.
ALL_TOOLSETS = frozenset({"all", "*"})


def parse_config(data: Any, *, env: Mapping[str, str] | None = None, base_dir: str | None = None) -> Config:
    """Validate a config mapping (e.g. parsed from YAML); `${VAR}` is read from `env`."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"the config must be a mapping of keys, got {type(data).__name__}")
    for reserved in ("base_dir", "config_file"):
        if reserved in data:
            raise ConfigError("unknown key", path=reserved)
    data = interpolate(data, os.environ if env is None else env)
    return validated(Config, {**data, "base_dir": base_dir})


def load_config(path: str | Path | None = None) -> Config:
    """Read `path`, or `./tooldeck.yaml` when present, or return the built-in defaults."""
    if path is None:
        default = Path("tooldeck.yaml")
        if not default.exists():
            return Config(base_dir=str(Path.cwd()))
        path = default
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    base_dir = str(path.resolve().parent)
    cached = config_cache.lookup(raw, base_dir)
    if cached is not None:
        return _from_file(cached, path)
    data = _parse_yaml(path, raw)
    seen: dict[str, str | None] = {}
    if isinstance(data, Mapping):
        data = interpolate(data, os.environ, seen=seen)
    config = parse_config(data, env={k: v for k, v in seen.items() if v is not None}, base_dir=base_dir)
    config_cache.store(raw, base_dir, seen, config)
    return _from_file(config, path)


def _from_file(config: Config, path: Path) -> Config:
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


def schema_adapter() -> Any:
    """The pydantic adapter of the config model (for its JSON Schema)."""
    return config_check.adapter(Config)
