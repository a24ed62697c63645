"""Tool lists in the shapes providers and servers publish, read as catalog fields.

A catalog file may hold the tools as any of them, mixed freely:

- `{"name", "description", "parameters"}`: tooldeck's own, OpenAI Responses (`"type":
  "function"` beside the name), a Gemini function declaration (`parametersJsonSchema` too);
- `{"type": "function", "function": {"name", "description", "parameters"}}`: OpenAI Chat
  Completions (what `tooldeck tools --json` prints by default);
- `{"name", "description", "input_schema"}`: Anthropic; `{"name", "description", "inputSchema"}`: MCP;
- `{"functionDeclarations": [...]}` (or `function_declarations`): Gemini's wrapper, each
  declaration an entry.

The document is a list of those, or an object with such a list under `"tools"` (an MCP
`tools/list` result, a request body). Errors name the exact place: `tools[3].function.name`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tooldeck.search.errors import CatalogError

# Where each published shape keeps the parameter schema, in the order they are looked for.
_SCHEMA_KEYS = ("parameters", "inputSchema", "input_schema", "parametersJsonSchema", "parameters_json_schema")
_GEMINI_WRAPPERS = ("functionDeclarations", "function_declarations")


def tool_items(data: Any) -> Iterator[tuple[str, Any]]:
    """(place, tool object) for each tool of a decoded document, wrappers unpacked."""
    if isinstance(data, Mapping) and isinstance(data.get("tools"), list):
        data, root = data["tools"], "tools"
    elif isinstance(data, list):
        root = "tools"
    else:
        raise CatalogError(
            f'a catalog is a JSON list of tools (or an object with a "tools" list), got {type(data).__name__}'
        )
    for i, item in enumerate(data):
        where = f"{root}[{i}]"
        wrapper = _gemini_wrapper(item)
        if wrapper is None:
            yield where, item
            continue
        declarations = item[wrapper]
        if not isinstance(declarations, list):
            raise CatalogError(f"{where}.{wrapper} must be a list, got {_shown(declarations)}")
        for j, declaration in enumerate(declarations):
            yield f"{where}.{wrapper}[{j}]", declaration


def _gemini_wrapper(item: Any) -> str | None:
    if isinstance(item, Mapping) and "name" not in item:
        for key in _GEMINI_WRAPPERS:
            if key in item:
                return key
    return None


def tool_fields(item: Any, where: str) -> tuple[str, str | None, Mapping[str, Any] | None]:
    """The name, description and parameter schema of one tool object (see the module docstring)."""
    if not isinstance(item, Mapping):
        raise CatalogError(f"{where} must be an object, got {_shown(item)}")
    inner = item.get("function")
    if "name" not in item and isinstance(inner, Mapping):
        item, where = inner, f"{where}.function"  # OpenAI Chat Completions
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise CatalogError(f"{where}.name must be a non-empty string, got {_shown(name)}")
    description = item.get("description")
    if description is not None and not isinstance(description, str):
        raise CatalogError(f"{where}.description ({name!r}) must be a string, got {_shown(description)}")
    for key in _SCHEMA_KEYS:
        params = item.get(key)
        if params is not None:
            if not isinstance(params, Mapping):
                raise CatalogError(f"{where}.{key} ({name!r}) must be an object, got {_shown(params)}")
            return name, description, params
    return name, description, None


def _shown(value: Any) -> str:
    """A short account of a wrong value: its JSON type, and the value when it is small."""
    kinds = {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    if value is None:
        return "nothing"
    if value == "":
        return "an empty string"
    kind = kinds.get(type(value), type(value).__name__)
    return f"{kind} ({value!r})" if isinstance(value, bool | int | float) else kind


__all__ = ["tool_fields", "tool_items"]
