"""Normalise real-world tool schemas into standard JSON Schema (what `Tool(...)` stores).

Schemas arrive from MCP servers, benchmark suites and code generators in forms no validator
or provider accepts as they are: `"type": "dict"` / `"float"` / `"String"` / `"tuple"`,
draft-04 boolean `exclusiveMinimum`, a non-standard `optional` flag, draft-03 `required: true`
on a property, a bare type name where a schema should be. These are rewritten into their
standard meaning and every rewrite is noted (`NormalizedSchema.notes`, also logged), so a
tool is accepted instead of rejected and `explain` can say what changed.

Only form changes are made here: the result validates the same arguments as the author meant.
Provider-specific narrowing happens later, in each dialect (`tooldeck.dialects`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck.errors import ToolDefinitionError
from tooldeck.schemas.keywords import JSON_TYPES, SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP, TYPE_ALIASES

_MISSING = object()

# A key path, built lazily: "parameters", (parent, key) or (parent, key, index); it is only
# turned into text ("parameters.properties.a.items") when a note or an error needs it.
Path = str | tuple[Any, ...]


def _fmt(path: Path) -> str:
    if isinstance(path, str):
        return path
    if len(path) == 3:
        return f"{_fmt(path[0])}.{path[1]}[{path[2]}]"
    return f"{_fmt(path[0])}.{path[1]}"


class NormalizedSchema(dict[str, Any]):
    """A parameters schema after normalisation; `notes` lists each rewrite (may be empty)."""

    notes: tuple[str, ...] = ()


def normalize_parameters(schema: Mapping[str, Any], *, tool: str = "<tool>") -> NormalizedSchema:
    """Return the standard-JSON-Schema form of `schema` (idempotent; the input is not changed).

    Raises `ToolDefinitionError` naming the key path when a part that must be a schema, a list
    of schemas or a map of schemas has another shape.
    """
    if isinstance(schema, NormalizedSchema):
        return schema
    notes: list[str] = []
    body = _node(schema, "parameters", notes, tool)
    if not isinstance(body, dict):  # a bare string at the top; the caller reports non-objects
        body = {"type": body} if isinstance(body, str) else {}
    out = NormalizedSchema(body)
    out.notes = tuple(notes)
    if notes:
        import logging  # only when something was rewritten: logging costs ~3 ms to import

        logging.getLogger("tooldeck.schemas").warning(
            "tool %r: parameters schema normalised: %s", tool, "; ".join(notes)
        )
    return out


def normalize_type(value: Any) -> tuple[Any, str | None]:
    """The standard form of a `type` value: (the new value, or None for "any type"; a note or None)."""
    if isinstance(value, str):
        if value in JSON_TYPES:
            return value, None
        mapped = TYPE_ALIASES.get(value.strip().lower(), "?")
        if mapped == "?":
            return None, f"unknown type {value!r} treated as any type"
        return mapped, f"non-standard type {value!r} read as {mapped or 'any type'!r}"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if not value:
            return None, "empty type list treated as any type"
        kinds: list[str] = []
        changed = False
        for item in value:
            kind, note = normalize_type(item)
            changed = changed or note is not None
            if kind is None:
                return None, f"type list {value!r} allows any type"
            if kind not in kinds:
                kinds.append(kind)
        if len(kinds) == 1:
            return kinds[0], f"type list {value!r} has one type"
        return kinds, (f"type list {value!r} read as {kinds!r}" if changed else None)
    return None, f"type {value!r} is neither a name nor a list of names; treated as any type"


def _node(node: Any, path: Path, notes: list[str], tool: str) -> Any:
    if node is True or node is False:
        return node
    if isinstance(node, str):
        kind, _ = normalize_type(node)
        notes.append(
            f"{_fmt(path)}: bare type name {node!r} where a schema belongs, read as {{'type': {kind!r}}}"
        )
        return {"type": kind} if kind else {}
    if type(node) is not dict and not isinstance(node, Mapping):
        raise ToolDefinitionError(
            f"tool {tool!r}: {_fmt(path)} must be a JSON-schema object or a boolean, got {type(node).__name__}"
        )
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            kind, note = normalize_type(value)
            if note:
                notes.append(f"{_fmt(path)}: {note}")
            if kind is not None:
                out["type"] = kind
        elif key in SUBSCHEMA:
            if key == "items" and isinstance(value, list):
                out[key] = [_node(v, (path, f"items[{i}]"), notes, tool) for i, v in enumerate(value)]
            else:
                out[key] = _node(value, (path, key), notes, tool)
        elif key in SUBSCHEMA_LIST:
            if not isinstance(value, list):
                raise ToolDefinitionError(f"tool {tool!r}: {_fmt(path)}.{key} must be a list of schemas")
            if not value:
                notes.append(f"{_fmt(path)}: empty {key} dropped")
                continue
            out[key] = [_node(v, (path, key, i), notes, tool) for i, v in enumerate(value)]
        elif key in SUBSCHEMA_MAP:
            if type(value) is not dict and not isinstance(value, Mapping):
                raise ToolDefinitionError(f"tool {tool!r}: {_fmt(path)}.{key} must be an object of schemas")
            out[key] = {n: _node(s, ((path, key), n), notes, tool) for n, s in value.items()}
        elif key == "optional" or (key == "required" and isinstance(value, bool)):
            continue  # per-property flags: folded into the parent's `required` below
        elif key == "required":
            if not isinstance(value, list | tuple) or not all(isinstance(r, str) for r in value):
                raise ToolDefinitionError(
                    f"tool {tool!r}: {_fmt(path)}.required must be a list of property names"
                )
            out[key] = list(value)
        else:
            out[key] = value
    _fix_exclusive_bounds(out, path, notes)
    if isinstance(out.get("items"), list):
        # Draft-07 tuple form; JSON Schema 2020-12 (what providers read) spells it prefixItems.
        tuple_items = out.pop("items")
        if tuple_items:
            out["prefixItems"] = tuple_items
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
        notes.append(f"{_fmt(path)}: tuple-form items rewritten as prefixItems")
    props = node.get("properties")
    if isinstance(props, Mapping):
        _fold_property_flags(out, props, path, notes)
    return out


def _fix_exclusive_bounds(out: dict[str, Any], path: Path, notes: list[str]) -> None:
    """Draft-04 `exclusiveMinimum: true` + `minimum: n` is draft-06+ `exclusiveMinimum: n`."""
    if "exclusiveMinimum" not in out and "exclusiveMaximum" not in out:
        return
    for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = out.get(flag, _MISSING)
        if not isinstance(value, bool):
            continue
        if value and bound in out:
            out[flag] = out.pop(bound)
            notes.append(f"{_fmt(path)}: draft-04 boolean {flag} rewritten as {flag}: {out[flag]!r}")
        else:
            del out[flag]
            notes.append(f"{_fmt(path)}: draft-04 boolean {flag}: {value} without {bound} dropped")


def _fold_property_flags(out: dict[str, Any], props: Mapping[str, Any], path: Path, notes: list[str]) -> None:
    """Property-level `required: true` (draft-03) and `optional: ...` (BFCL) -> parent `required`."""
    required = list(out.get("required", ()))
    changed = False
    for name, sub in props.items():
        if not isinstance(sub, Mapping):
            continue
        flag = sub.get("required")
        if isinstance(flag, bool):
            notes.append(
                f"{_fmt(path)}.properties.{name}: property-level required: {flag} moved to the parent"
            )
            if flag and name not in required:
                required.append(name)
                changed = True
            if not flag and name in required:
                required.remove(name)
                changed = True
        optional = sub.get("optional", _MISSING)
        if optional is not _MISSING:
            is_optional = str(optional).strip().lower() not in {"false", "0", "no", ""}
            notes.append(f"{_fmt(path)}.properties.{name}: non-standard 'optional' keyword dropped")
            if is_optional and name in required:
                required.remove(name)
                changed = True
    if changed:
        out["required"] = required
