"""Which platforms a config knows: the keys of `platform_toolsets`, or only the default one.

The same rule holds for the `platform` key and for a platform asked for by name (`--platform`,
`deck.tools(platform=...)`); an unknown platform is an error naming the known ones, never a
silent fallback to every toolset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from tooldeck._core.config_sections import DEFAULT_PLATFORM
from tooldeck.errors import ConfigError


class PlatformConfig(Protocol):
    """What is read of a `Config` here (the validator below `Config` checks platforms too)."""

    @property
    def platform(self) -> str: ...
    @property
    def platform_toolsets(self) -> Mapping[str, list[str]]: ...


def unknown_platform(config: PlatformConfig, name: str) -> str | None:
    """Why `name` is not a platform of `config` (None when it is one), naming the known ones.

    The platforms are those `platform_toolsets` defines; without any, the only platform is the
    default one. The same rule holds for the `platform` key and for a platform asked for by
    name (`--platform`, `deck.tools(platform=...)`).
    """
    defined = sorted(config.platform_toolsets)
    if name in (defined or [DEFAULT_PLATFORM]):
        return None
    if not defined:
        add = f"; add platform_toolsets.{name} to define it" if name.strip() else ""
        none = f"the config defines no platform_toolsets{add}"
        return f"unknown platform {name!r}; known platforms: {DEFAULT_PLATFORM} ({none})"
    from tooldeck._core.diagnostics import did_you_mean

    hint = did_you_mean(name, defined, n=1)
    return f"unknown platform {name!r}; known platforms (platform_toolsets): {', '.join(defined)}{hint}"


def check_platforms(config: PlatformConfig) -> None:
    """The config's own platform names: none blank, and `platform` a known one. The default
    platform is checked where it is used instead, so a config that defines only other platforms
    loads, for commands that pick one with `--platform`."""
    for name in config.platform_toolsets:
        if not name.strip():
            raise ConfigError(
                f"a platform name must not be empty or blank, got {name!r}", path="platform_toolsets"
            )
    if config.platform == DEFAULT_PLATFORM:
        return
    problem = unknown_platform(config, config.platform)
    if problem is not None:
        raise ConfigError(problem, path="platform")
