"""Config `tools:` entries: `use: package.module:attribute` (DeerFlow's convention).

The attribute may be a Tool, a `@tool` function (already a Tool), a plain function (wrapped
with `@tool`), or a list of tools; with a `convert` function (the deck gives one), also another
framework's tool object, which `convert` turns into Tools (LangChain, pydantic-ai, ...). Options in the entry override the tool's own. A config
`name` that differs from the tool's own name is reported as a warning: the model sees and
routes by the tool's name, not the config label.

`prompts:` and `resources:` entries are read the same way: a `@prompt` (or a plain function,
made one), a `@resource`, or a list of them.
"""

from __future__ import annotations

from collections.abc import Callable

from tooldeck._core.config import CoreConfig, ToolEntry
from tooldeck._core.decorator import function_tool
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.prompts import Prompt, prompt
from tooldeck._core.resources import DeclaredResource
from tooldeck._core.sources import tools_from_value
from tooldeck._core.sources.base import Source, SourceListing
from tooldeck._core.tool import Tool
from tooldeck._utils.user_code import import_module, importable_from
from tooldeck.errors import ConfigError, SourceError, ToolDefinitionError

# Another framework's tool object as Tools, or None when `value` is not one (`where` names it).
Converter = Callable[[object, str], "list[Tool] | None"]


def resolve_use(use: str, *, where: str) -> object:
    """Import `package.module:attribute` and return the attribute."""
    module_name, _, attr = use.partition(":")
    try:
        module = import_module(module_name)
    except SourceError as exc:
        raise ConfigError(str(exc), path=where) from None
    value: object = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ConfigError(f"module {module_name!r} has no attribute {attr!r}", path=where) from None
    return value


def entry_owner(index: int, entry: ToolEntry) -> str:
    """The `owner` of the tools that config entry `tools[index]` loads."""
    return f"config tools[{index}] ({entry.use})"


def load_entry(
    entry: ToolEntry, index: int, convert: Converter | None = None
) -> tuple[list[Tool], list[Diagnostic]]:
    where = f"tools[{index}].use"
    value = resolve_use(entry.use, where=where)
    if convert is not None:
        try:
            value = _converted(value, entry.use, convert)
        except ToolDefinitionError as exc:
            raise ConfigError(str(exc), path=where) from None
    if isinstance(value, type):
        raise ConfigError(
            f"{entry.use} is a class, not a tool: point `use:` at a Tool, a @tool function or a plain function",
            path=where,
        )
    if callable(value) and not isinstance(value, Tool):
        try:
            value = function_tool(value)
        except ToolDefinitionError as exc:
            raise ConfigError(str(exc), path=where) from None
    try:
        tools = tools_from_value(value, where=entry.use)
    except SourceError as exc:
        raise ConfigError(str(exc), path=where) from None
    notes: list[Diagnostic] = []
    if entry.name is not None and len(tools) == 1 and tools[0].name != entry.name:
        notes.append(
            Diagnostic(
                "warning",
                f"config name {entry.name!r} differs from the tool's own name {tools[0].name!r}; "
                f"the model sees and calls it as {tools[0].name!r}",
                f"tools[{index}].name",
            )
        )
    owner = entry_owner(index, entry)
    try:
        options = entry.options()
        out = [
            (t.with_options(**options) if options else t).relabeled(source="config", owner=owner)
            for t in tools
        ]
    except ToolDefinitionError as exc:
        raise ConfigError(str(exc), path=f"tools[{index}]") from None
    return out, notes


def _converted(value: object, where: str, convert: Converter) -> object:
    """`value` with another framework's tools (itself, or items of a list) made Tools."""
    if isinstance(value, list | tuple):
        return [_converted(item, f"{where}[{i}]", convert) for i, item in enumerate(value)]
    if isinstance(value, Tool):
        return value
    found = convert(value, where)
    return value if found is None else found


class ConfigEntrySource(Source):
    """The tools named by the config's `tools:` entries (highest priority)."""

    def __init__(
        self, entries: list[ToolEntry], *, name: str = "config", convert: Converter | None = None
    ) -> None:
        super().__init__(name, "config")
        self.entries = list(entries)
        self.convert = convert

    def load(self) -> SourceListing:
        """Every entry's tools; an entry that cannot be loaded is a `ConfigError` naming it."""
        tools: list[Tool] = []
        notes: list[Diagnostic] = []
        for i, entry in enumerate(self.entries):
            found, n = load_entry(entry, i, self.convert)
            tools += found
            notes += n
        return SourceListing(tuple(tools), tuple(notes))


# -- `prompts:` and `resources:` entries (served by `tooldeck serve`) ----------------------------


def config_prompts(config: CoreConfig) -> list[Prompt]:
    """The prompts config `prompts:` names, each labelled with its entry; a ConfigError names an
    entry that cannot be imported or is not a @prompt (a plain function is made one)."""
    out: list[Prompt] = []
    for index, entry in enumerate(config.prompts):
        where = f"prompts[{index}].use"
        for value in _values(config, entry.use, where):
            if callable(value) and not isinstance(value, Prompt | DeclaredResource | Tool | type):
                try:
                    value = prompt(value)
                except ToolDefinitionError as exc:
                    raise ConfigError(str(exc), path=where) from None
            if not isinstance(value, Prompt):
                raise ConfigError(
                    f"{entry.use} holds a {type(value).__name__}, not a prompt: point `use:` at a "
                    "@prompt function or a list of them",
                    path=where,
                )
            out.append(value.relabeled(owner=f"config prompts[{index}] ({entry.use})"))
    return out


def config_resources(config: CoreConfig) -> list[DeclaredResource]:
    """The resources config `resources:` names, each labelled with its entry; a ConfigError names
    an entry that cannot be imported or is not a @resource."""
    out: list[DeclaredResource] = []
    for index, entry in enumerate(config.resources):
        where = f"resources[{index}].use"
        for value in _values(config, entry.use, where):
            if not isinstance(value, DeclaredResource):
                raise ConfigError(
                    f"{entry.use} holds a {type(value).__name__}, not a resource: point `use:` at a "
                    "@resource('scheme://...') function or a list of them",
                    path=where,
                )
            out.append(value.relabeled(owner=f"config resources[{index}] ({entry.use})"))
    return out


def _values(config: CoreConfig, use: str, where: str) -> list[object]:
    """What `use` names: one value, or the items of a list or tuple of them."""
    importable_from([config.base_dir])  # modules next to the config file, as for `tools:`
    value = resolve_use(use, where=where)
    return list(value) if isinstance(value, list | tuple) else [value]
