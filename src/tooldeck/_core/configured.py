"""What a config brings to a deck besides its gates: sources, middleware, prompts, resources,
and how the assembly counts a tool's tokens (as config `model:` receives it).

The one place config entries become objects: `use:` entries are imported (through
`tooldeck._utils.user_code`, with the one `sys.path` rule) and checked, each problem a
ConfigError naming its key path. What the satellites bring (the tool library's source, the
agent's and vision services) is handed in by the deck, never imported from here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.config import CoreConfig
from tooldeck._core.execution.middleware import Placed, check_middleware
from tooldeck._core.prompts import Prompt
from tooldeck._core.resources import DeclaredResource
from tooldeck._core.sources.base import StaticSource, ToolSource
from tooldeck._core.tool import Tool
from tooldeck._utils.user_code import importable_from
from tooldeck.errors import ConfigError, ToolConflictError

Convert = Callable[[object, str], "list[Tool] | None"]


def config_sources(
    config: CoreConfig, *, library: Sequence[ToolSource] = (), convert: Convert | None = None
) -> list[ToolSource]:
    """The sources the config names, in order: `library` (the built-in tools, from the deck),
    `discover:`, plugins, `tools:` entries, MCP servers, ACP agents, `tool_search`."""
    from tooldeck._core.sources.config_entries import ConfigEntrySource
    from tooldeck._core.sources.discovery import PackageSource
    from tooldeck._core.sources.entry_points import PluginSource

    importable_from([config.base_dir])  # modules next to the config, for `use:` and `discover:`
    out: list[ToolSource] = list(library)
    if config.discover:
        out.append(PackageSource(list(config.discover), name="discover", kind="user"))
    if config.plugins.enabled:
        # Plugins are installed distributions: a `*.dist-info` next to the config (in the
        # workspace, where tools write) is not one.
        skip = frozenset({os.path.realpath(config.base_dir)} if config.base_dir else ())
        out.append(PluginSource(disabled=frozenset(config.plugins.disabled), skip=skip))
    if config.tools:
        out.append(ConfigEntrySource(list(config.tools), convert=convert))
    if config.mcp_servers:
        from tooldeck._core.sources.mcp import mcp_sources

        out.extend(mcp_sources(config))
    if config.acp_agents:
        from tooldeck._core.sources.acp import AcpSource

        out.append(AcpSource(config))
    if config.tool_search.enabled:
        # Part of the deferral machinery, not of the tool library: present even without built-ins.
        from tooldeck._core.disclosure.search_tool import tool_search

        out.append(StaticSource([tool_search], name="tool_search", kind="builtin"))
    return out


def config_middleware(config: CoreConfig) -> list[Placed]:
    """The middleware config `middleware:` names, placed as its entries say: instances, or
    classes and factories called with no arguments; a ConfigError names the entry that is not one."""
    if not config.middleware:
        return []
    from tooldeck._core.sources.config_entries import resolve_use

    importable_from([config.base_dir])
    out: list[Placed] = []
    for index, entry in enumerate(config.middleware):
        where = f"middleware[{index}].use"
        if ":" not in entry.use:
            raise ConfigError(f"{entry.use!r} must be 'package.module:attribute'", path=where)
        value = resolve_use(entry.use, where=where)
        if getattr(value, "on_call", None) is None or isinstance(value, type):
            if not callable(value):
                raise ConfigError(f"{entry.use} is not a middleware (no on_call method)", path=where)
            try:
                value = value()
            except Exception as exc:  # boundary: a user factory may raise anything
                raise ConfigError(
                    f"{entry.use} is not a middleware (it has no on_call), and calling it with no "
                    f"arguments to make one failed: {type(exc).__name__}: {exc}",
                    path=where,
                ) from None
        try:
            [checked] = check_middleware([value], where)
        except TypeError as exc:
            raise ConfigError(str(exc), path=where) from None
        out.append(Placed(checked, entry.before, entry.after))
    return out


D = TypeVar("D", Prompt, DeclaredResource)


def declarations(
    config: CoreConfig, prompts: Sequence[Prompt], resources: Sequence[DeclaredResource]
) -> tuple[tuple[Prompt, ...], tuple[DeclaredResource, ...]]:
    """The prompts and resources `tooldeck serve` offers: the given ones, then config `prompts:`
    and `resources:`; a ToolConflictError when two declare one name (a prompt) or one URI or
    URI template (a resource); a skill's prompt of the same name is overridden instead."""
    configured_prompts: list[Prompt] = []
    configured_resources: list[DeclaredResource] = []
    if config.prompts or config.resources:
        from tooldeck._core.sources.config_entries import config_prompts, config_resources

        configured_prompts, configured_resources = config_prompts(config), config_resources(config)
    return (
        _unique([*prompts, *configured_prompts], "prompt", lambda p: p.name),
        _unique([*resources, *configured_resources], "resource", lambda r: r.uri),
    )


def _unique(declared: list[D], kind: str, key: Callable[[D], str]) -> tuple[D, ...]:
    seen: dict[str, D] = {}
    for found in declared:
        first = seen.setdefault(key(found), found)
        if first is not found:
            raise ToolConflictError(
                f"{kind} {key(found)!r} is declared twice: by {first.owner} and by {found.owner}",
                name=key(found),
                owners=(first.owner, found.owner),
            )
    return tuple(declared)


def given(values: Iterable[object], kind: type[D], key: str, decorator: str) -> tuple[D, ...]:
    """`Deck(prompts=...)` / `Deck(resources=...)` checked: a TypeError names a wrong item."""
    out: list[D] = []
    for i, value in enumerate(values):
        if not isinstance(value, kind):
            raise TypeError(
                f"Deck({key}=...)[{i}] is a {type(value).__name__}, not a {decorator} declaration"
            )
        out.append(value)
    return tuple(out)


def count_tokens(
    tools: Sequence[Tool], descriptions: Mapping[str, str], config: CoreConfig
) -> dict[str, int]:
    """Tokens of each tool as config `model:` receives it (for tool_search.max_exposed_tokens)."""
    from tooldeck._core.dialects import token_costs

    view = Loadout(
        platform=config.platform,
        exposed=tuple(tools),
        deferred=(),
        hidden=(),
        descriptions=descriptions,
        reasons={},
        config=config,
    )
    return token_costs(
        view, config.model.provider, strict=config.dialects.openai.strict, profile=config.model.name
    )


def check_unique_names(sources: list[ToolSource]) -> None:
    seen: set[str] = set()
    for source in sources:
        if source.name in seen:
            raise ConfigError(f"two tool sources are named {source.name!r}; give each source its own name")
        seen.add(source.name)


__all__ = [
    "check_unique_names",
    "config_middleware",
    "config_sources",
    "count_tokens",
    "declarations",
    "given",
]
