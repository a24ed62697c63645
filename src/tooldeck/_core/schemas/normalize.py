"""Normalise real-world tool schemas into standard JSON Schema (what `Tool(...)` stores).

Schemas arrive from MCP servers, benchmark suites and code generators in forms no validator
or provider accepts as they are: `"type": "dict"` / `"float"` / `"String"` / `"tuple"`,
draft-04 boolean `exclusiveMinimum`, a non-standard `optional` flag, draft-03 `required: true`
on a property, a bare type name where a schema should be. These are rewritten into their
standard meaning and every rewrite is noted (`NormalizedSchema.notes`, also logged), so a
tool is accepted instead of rejected and `explain` can say what changed.

Only form changes are made here: the result validates the same arguments as the author meant.
Provider-specific narrowing happens later, in each dialect (`tooldeck._core.dialects`).

The same walk applies the definition rules of `definition.py` to every normalised node, so a
schema no validator could enforce is refused here, with its key path, at no second walk's cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck._core.schemas.definition import (
    KEYWORD_RULES,
    MAX_SCHEMA_DEPTH,
    check_references,
    keyword_problem,
    node_problem,
)
from tooldeck._core.schemas.keywords import JSON_TYPES, SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP, TYPE_ALIASES
from tooldeck.errors import ToolDefinitionError

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


class _Walk:
    """What one normalisation has seen: its notes, and whether references need resolving."""

    __slots__ = ("nested_ids", "notes", "refs", "tool")

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.notes: list[str] = []
        self.refs = False
        self.nested_ids: list[str] = []

    def fail(self, path: Path, problem: str) -> ToolDefinitionError:
        return ToolDefinitionError(f"tool {self.tool!r}: {_fmt(path)}: {problem}")


def normalize_parameters(schema: Mapping[str, Any], *, tool: str = "<tool>") -> NormalizedSchema:
    """Return the standard-JSON-Schema form of `schema` (idempotent; the input is not changed).

    Raises `ToolDefinitionError` naming the key path when a part that must be a schema, a list
    of schemas or a map of schemas has another shape.
    """
    if isinstance(schema, NormalizedSchema):
        return schema
    walk = _Walk(tool)
    try:
        body = _node(schema, "parameters", walk, 0, value=True)
        if walk.refs and isinstance(body, dict):
            check_references(body, tool=tool, nested_ids=walk.nested_ids)
    except RecursionError:
        raise ToolDefinitionError(f"tool {tool!r}: parameters: the schema is nested too deeply") from None
    if not isinstance(body, dict):  # a bare string at the top; the caller reports non-objects
        body = {"type": body} if isinstance(body, str) else {}
    out = NormalizedSchema(body)
    out.notes = tuple(walk.notes)
    if walk.notes:
        from tooldeck._utils.logs import (
            get_logger,  # only when something was rewritten: logging costs ~3 ms to import
        )

        get_logger("tooldeck.schemas").warning(
            "tool %r: parameters schema normalised: %s", tool, "; ".join(walk.notes)
        )
    return out


# What `normalize_type` returns for a value that names no type: the schema is refused.
UNKNOWN_TYPE: Any = object()


def normalize_type(value: Any) -> tuple[Any, str | None]:
    """The standard form of a `type` value: (the new value, None for "any type", or
    UNKNOWN_TYPE when it names no type; a note of the rewrite, or None)."""
    if isinstance(value, str):
        if value in JSON_TYPES:
            return value, None
        mapped = TYPE_ALIASES.get(value.strip().lower(), "?")
        if mapped == "?":
            return UNKNOWN_TYPE, f"unknown type {value!r}"
        return mapped, f"non-standard type {value!r} read as {mapped or 'any type'!r}"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if not value:
            return None, "empty type list treated as any type"
        kinds: list[str] = []
        changed = False
        for item in value:
            kind, note = normalize_type(item)
            changed = changed or note is not None
            if kind is UNKNOWN_TYPE:
                return kind, f"unknown type {item!r} in {value!r}"
            if kind is None:
                return None, f"type list {value!r} allows any type"
            if kind not in kinds:
                kinds.append(kind)
        if len(kinds) == 1:
            return kinds[0], f"type list {value!r} has one type"
        return kinds, (f"type list {value!r} read as {kinds!r}" if changed else None)
    return UNKNOWN_TYPE, f"type {value!r} is neither a type name nor a list of them"


def _type_of(value: Any, path: Path, tool: str) -> tuple[Any, str | None]:
    kind, note = normalize_type(value)
    if kind is UNKNOWN_TYPE:
        raise ToolDefinitionError(
            f"tool {tool!r}: {_fmt(path)}: {note}; the JSON types are "
            f"{', '.join(sorted(JSON_TYPES))} (common aliases such as 'str', 'float', 'dict' are read too)"
        )
    return kind, note


def _node(node: Any, path: Path, walk: _Walk, depth: int, *, value: bool = False) -> Any:
    """`value`: the node describes a value of its own (the root, a property, an item), rather
    than refining its parent's (a branch of anyOf, a $defs entry); only such a node must declare
    every property it requires."""
    if node is True or node is False:
        return node
    if isinstance(node, str):
        kind, _ = _type_of(node, path, walk.tool)
        walk.notes.append(
            f"{_fmt(path)}: bare type name {node!r} where a schema belongs, read as {{'type': {kind!r}}}"
        )
        return {"type": kind} if kind else {}
    if type(node) is not dict and not isinstance(node, Mapping):
        raise walk.fail(path, f"must be a JSON-schema object or a boolean, got {type(node).__name__}")
    if depth > MAX_SCHEMA_DEPTH:
        raise walk.fail(path, f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
    out = _members(node, path, walk, depth)
    _fix_exclusive_bounds(out, path, walk.notes)
    if isinstance(out.get("items"), list):
        # Draft-07 tuple form; JSON Schema 2020-12 (what providers read) spells it prefixItems.
        tuple_items = out.pop("items")
        if tuple_items:
            out["prefixItems"] = tuple_items
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
        walk.notes.append(f"{_fmt(path)}: tuple-form items rewritten as prefixItems")
    props = node.get("properties")
    if isinstance(props, Mapping):
        _fold_property_flags(out, props, path, walk.notes)
    if "required" in out or "patternProperties" in out:
        problem = node_problem(out, root=depth == 0, value=value)
        if problem is not None:
            raise walk.fail((path, problem[0]), problem[1])
    if "$ref" in out:
        walk.refs = True
    if "$id" in out and depth:
        walk.nested_ids.append(_fmt(path))
    return out


def _members(node: Mapping[str, Any], path: Path, walk: _Walk, depth: int) -> dict[str, Any]:
    """The node's keywords in standard form, its subschemas normalised."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            if type(value) is str and value in JSON_TYPES:
                out["type"] = value
                continue
            kind, note = _type_of(value, (path, "type"), walk.tool)
            if note:
                walk.notes.append(f"{_fmt(path)}: {note}")
            if kind is not None:
                out["type"] = kind
        elif key in SUBSCHEMA:
            if key in KEYWORD_RULES:  # a subschema keyword this package refuses (unevaluated*)
                raise walk.fail((path, key), str(keyword_problem(key, value)))
            if key == "items" and isinstance(value, list):
                out[key] = [
                    _node(v, (path, f"items[{i}]"), walk, depth + 1, value=True) for i, v in enumerate(value)
                ]
            else:
                out[key] = _node(value, (path, key), walk, depth + 1, value=key in _VALUE_KEYS)
        elif key in SUBSCHEMA_LIST:
            if not isinstance(value, list):
                raise walk.fail((path, key), "must be a list of schemas")
            if not value:
                walk.notes.append(f"{_fmt(path)}: empty {key} dropped")
                continue
            out[key] = [
                _node(v, (path, key, i), walk, depth + 1, value=key == "prefixItems")
                for i, v in enumerate(value)
            ]
        elif key in SUBSCHEMA_MAP:
            if type(value) is not dict and not isinstance(value, Mapping):
                raise walk.fail((path, key), "must be an object of schemas")
            is_value = key in _VALUE_KEYS
            out[key] = {
                n: _node(s, ((path, key), n), walk, depth + 1, value=is_value) for n, s in value.items()
            }
        elif key == "dependencies" and isinstance(value, Mapping):
            _split_dependencies(out, value, path, walk, depth)
        elif key == "optional" or (key == "required" and isinstance(value, bool)):
            continue  # per-property flags: folded into the parent's `required` below
        elif key == "required":
            if not isinstance(value, list | tuple) or not all(isinstance(r, str) for r in value):
                raise walk.fail((path, key), "must be a list of property names")
            out[key] = list(value)
            problem = keyword_problem(key, out[key])
            if problem is not None:
                raise walk.fail((path, key), problem)
        else:
            rule = KEYWORD_RULES.get(key)
            if rule is not None and type(value) not in rule[0] and not _draft04_flag(key, value):
                problem = keyword_problem(key, value)
                if problem is not None:
                    raise walk.fail((path, key), problem)
            out[key] = value
    return out


# Keywords whose subschemas describe a value of their own (a member, an item), as opposed to
# combinators and definitions, which refine or are referred to.
_VALUE_KEYS = frozenset(
    {
        "properties",
        "patternProperties",
        "additionalProperties",
        "items",
        "prefixItems",
        "contains",
        "additionalItems",
    }
)


def _draft04_flag(key: str, value: Any) -> bool:
    """Draft-04 boolean exclusive bounds are rewritten after the members are read."""
    return isinstance(value, bool) and key in ("exclusiveMinimum", "exclusiveMaximum")


def _split_dependencies(
    out: dict[str, Any], table: Mapping[str, Any], path: Path, walk: _Walk, depth: int
) -> None:
    """Draft-07 `dependencies` is 2020-12's `dependentRequired` (name lists) and
    `dependentSchemas` (schemas)."""
    for name, dep in table.items():
        if isinstance(dep, list):
            out.setdefault("dependentRequired", {})[name] = list(dep)
        else:
            sub = _node(dep, ((path, "dependencies"), name), walk, depth + 1)
            out.setdefault("dependentSchemas", {})[name] = sub
    walk.notes.append(f"{_fmt(path)}: draft-07 dependencies rewritten as dependentRequired/dependentSchemas")


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
    flagged = [
        (name, sub)
        for name, sub in props.items()
        if type(sub) is dict and ("required" in sub or "optional" in sub)
    ]
    if not flagged:
        return
    required = list(out.get("required", ()))
    changed = False
    for name, sub in flagged:
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
