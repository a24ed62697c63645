"""Deferred tools on the wire: the provider's own deferral where it has one, a cache-stable
`tools[]` elsewhere (`tool_search.native`).

With `native: off` a tool `tool_search` finds joins `tools[]` on the next request, which changes
the start of every later request (on Anthropic, where the cache order is tools → system →
messages, the whole cached prefix). With `native: auto` (the default) `tools[]` is the same on
every request of a conversation, whatever has been promoted:

  * anthropic: every deferred tool is declared with `defer_loading: true`; our `tool_search`
    answers with `tool_reference` blocks, which bring the definitions into the conversation where
    the result stands; or (`execution: server`) Anthropic's own search tool
    (`tool_search_tool_bm25_20251119` / `_regex_`) searches, its `server_tool_use` and
    `tool_search_tool_result` blocks kept as received.
  * responses: `{"type": "tool_search", "execution": "client"}` (our search, answered with a
    `tool_search_output` item) or `"server"` (OpenAI's), deferred functions with
    `defer_loading: true`, an MCP server's tools grouped as one `namespace`.
  * openai (Chat Completions and compatible servers, no native search): the exposed tools plus
    `call_tool`; `tool_search`'s result carries the found tools' definitions, and the model calls
    them through `call_tool(name, arguments)`, which the client unwraps into a call of the tool
    itself (checked, approved and run like any other).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tooldeck.agent.models.base import ModelSettings
from tooldeck.agent.models.tools_render import render_tools
from tooldeck.core import Loadout, Tool, ToolCall, ToolRendering, deferred_listing, loader_name
from tooldeck.core import toolset_lines as _toolset_lines

Mode = Literal["off", "anthropic", "responses", "stable"]
Dialect = Literal["openai", "responses", "anthropic"]
CALL_TOOL = "call_tool"
# The beta Anthropic's tool search (defer_loading, tool_reference, its search tools) is under.
ANTHROPIC_TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20"
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class Native:
    """How one request carries the loadout's deferred tools."""

    mode: Mode
    server: bool
    loader: str | None
    base: tuple[Tool, ...]  # the exposed tools that are not deferred (promoted ones left out)
    deferred: tuple[Tool, ...]  # the whole deferred catalog, in name order

    @property
    def deferred_names(self) -> frozenset[str]:
        return frozenset(t.name for t in self.deferred)


def native_for(loadout: Loadout | None, provider: str) -> Native | None:
    """The native deferral of a request to `provider`, or None when tools go as exposed."""
    if loadout is None or not loadout.all_deferred:
        return None
    settings = loadout.config.tool_search
    loader = loader_name(loadout)
    if settings.native == "off" or loader is None:
        return None
    mode: Mode = (
        "anthropic" if provider == "anthropic" else "responses" if provider == "responses" else "stable"
    )
    server = settings.execution == "server" and mode != "stable"
    deferred = loadout.all_deferred
    names = {t.name for t in deferred}
    base = tuple(t for t in loadout.exposed if t.name not in names and not (server and t.name == loader))
    return Native(mode, server, loader, base, deferred)


def rendered(
    loadout: Loadout, tools: Sequence[Tool], dialect: Dialect, settings: ModelSettings
) -> list[dict[str, Any]]:
    """`tools` as `dialect` renders them (cached on the loadout by their names)."""
    rendering = ToolRendering(dialect, settings.strict_tools, settings.model)
    key = (
        "tooldeck.agent.models.native",
        dialect,
        settings.strict_tools,
        settings.model,
        tuple(t.name for t in tools),
    )
    cached: list[dict[str, Any]] = loadout.cached_render(key, lambda: rendering.render(tools, loadout))
    return [dict(r) for r in cached]


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_tools(loadout: Loadout, native: Native, settings: ModelSettings) -> list[dict[str, Any]]:
    """The exposed tools, then (server search) Anthropic's search tool, then every deferred tool
    with `defer_loading: true`."""
    tools = rendered(loadout, native.base, "anthropic", settings)
    if native.server:
        variant = loadout.config.tool_search.server_search
        tools.append({"type": f"tool_search_tool_{variant}_20251119", "name": f"tool_search_tool_{variant}"})
    tools += [{**r, "defer_loading": True} for r in rendered(loadout, native.deferred, "anthropic", settings)]
    return tools


def loaded_names(content: str) -> list[str]:
    """The names a `tool_search` result loaded (its JSON `loaded` list), or [] when it is not one."""
    try:
        data = json.loads(content)
    except ValueError:
        return []
    names = data.get("loaded") if isinstance(data, dict) else None
    return [str(n) for n in names] if isinstance(names, list) else []


def tool_references(content: str, deferred: frozenset[str]) -> list[dict[str, Any]] | None:
    """A `tool_search` result as `tool_reference` blocks, or None when it loaded nothing."""
    names = [n for n in loaded_names(content) if n in deferred]
    return [{"type": "tool_reference", "tool_name": n} for n in names] or None


def server_found(blocks: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    """The tools Anthropic's own search found in a reply (its `tool_search_tool_result` blocks)."""
    found: list[str] = []
    for b in blocks:
        content = b.get("content") if b.get("type") == "tool_search_tool_result" else None
        if isinstance(content, dict):
            found += [str(r.get("tool_name")) for r in content.get("tool_references") or []]
    return tuple(found)


# -- OpenAI Responses ----------------------------------------------------------------------------


def namespace_of(tool: Tool) -> str | None:
    """The namespace a deferred tool goes in on Responses: its MCP server's toolset, or None."""
    return _NOT_NAME.sub("_", tool.toolset)[:64] if tool.source == "mcp" else None


def responses_group(
    loadout: Loadout, tools: Sequence[Tool], settings: ModelSettings, *, defer: bool
) -> list[dict[str, Any]]:
    """`tools` as Responses tools: an MCP server's as one `namespace`, the others as functions."""
    out: list[dict[str, Any]] = []
    spaces: dict[str, list[dict[str, Any]]] = {}
    members: dict[str, list[Tool]] = {}
    for tool, r in zip(tools, rendered(loadout, tools, "responses", settings), strict=True):
        if defer:
            r["defer_loading"] = True
        space = namespace_of(tool)
        if space is None:
            out.append(r)
            continue
        if space not in spaces:
            spaces[space] = []
            out.append({"type": "namespace", "name": space, "description": "", "tools": spaces[space]})
        spaces[space].append(r)
        members.setdefault(space, []).append(tool)
    for item in out:
        if item.get("type") == "namespace":
            [line] = _toolset_lines(members[item["name"]], loadout.config.tool_search.summary_chars)
            item["description"] = line.removeprefix("- ")
    return out


def responses_tools(loadout: Loadout, native: Native, settings: ModelSettings) -> list[dict[str, Any]]:
    """The exposed tools (ours `tool_search` as the `tool_search` tool), then the deferred ones."""
    tools: list[dict[str, Any]] = []
    for t, r in zip(native.base, rendered(loadout, native.base, "responses", settings), strict=True):
        if t.name == native.loader:
            r = {
                "type": "tool_search",
                "execution": "client",
                "description": r.get("description"),
                "parameters": r.get("parameters"),
            }
        tools.append(r)
    if native.server:
        tools.append({"type": "tool_search", "execution": "server"})
    return tools + responses_group(loadout, native.deferred, settings, defer=True)


def without_listing(system: str, loadout: Loadout) -> str:
    """The system prompt without the section naming the deferred tools (on Responses the
    deferred tools' namespaces and descriptions say it), the rest as it is."""
    section = deferred_listing(loadout)
    if section is None or not system.endswith(section):
        return system
    return system[: -len(section)].rstrip("\n")


def search_output(loadout: Loadout, content: str, settings: ModelSettings) -> list[dict[str, Any]]:
    """The definitions a `tool_search` result loaded, for a `tool_search_output` item."""
    names = set(loaded_names(content))
    found = [t for t in loadout.all_deferred if t.name in names]
    return responses_group(loadout, found, settings, defer=False)


def search_arguments(arguments: Any) -> str:
    """A `tool_search_call`'s arguments as the arguments of our `tool_search` call."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {})


# -- cache-stable (Chat Completions and compatible servers) -----------------------------------


def call_tool_definition() -> dict[str, Any]:
    """The one tool that reaches every tool `tool_search` loaded, so `tools[]` never changes."""
    return {
        "type": "function",
        "function": {
            "name": CALL_TOOL,
            "description": (
                "Call a tool that tool_search loaded: `name` is the tool's name and `arguments` the "
                "object its definition (in the tool_search result) describes."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "the loaded tool's name"},
                    "arguments": {"type": "object", "description": "the tool's arguments"},
                },
                "required": ["name", "arguments"],
            },
        },
    }


def stable_tools(loadout: Loadout, native: Native, settings: ModelSettings) -> list[dict[str, Any]]:
    return [*rendered(loadout, native.base, "openai", settings), call_tool_definition()]


def _as_value(arguments: str | Mapping[str, Any] | None) -> Any:
    """A call's arguments as the value they spell (text that is not JSON as it is)."""
    if arguments is None or not isinstance(arguments, str):
        return dict(arguments or {})
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return arguments


def wrap_call(call: ToolCall, native: Native) -> tuple[str, str | Mapping[str, Any] | None]:
    """(name, arguments) a call goes back to the model as: a deferred tool's as `call_tool`."""
    if call.name not in native.deferred_names:
        return call.name, call.arguments
    wrapped = {"name": call.name, "arguments": _as_value(call.arguments)}
    return CALL_TOOL, json.dumps(wrapped, ensure_ascii=False)


def unwrap_call(call: ToolCall) -> ToolCall:
    """A `call_tool` call as a call of the tool it names (left as it is when it names none)."""
    if call.name != CALL_TOOL:
        return call
    data = _as_value(call.arguments)
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not name:
        return call
    inner = data.get("arguments", {})
    text = inner if isinstance(inner, str) else json.dumps(inner if inner is not None else {})
    return ToolCall(id=call.id, name=name, arguments=text)


def wire_tools(
    loadout: Loadout,
    native: Native | None,
    dialect: Dialect,
    settings: ModelSettings,
) -> list[dict[str, Any]]:
    """The `tools` of a request: natively deferred (or cache-stable) when `native` says so, else
    the loadout's exposed tools."""
    if native is None:
        return render_tools(loadout, dialect, settings)
    build = {"anthropic": anthropic_tools, "responses": responses_tools, "openai": stable_tools}[dialect]
    return build(loadout, native, settings)
