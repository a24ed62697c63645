"""Checking a tool's parameters schema when the tool is defined, so no call can fail on it.

A schema is refused, with the key path of the problem, when it breaks the JSON-Schema
meta-schema where it matters (a keyword whose value has the wrong shape, a pattern that is not
a regular expression, a negative `minLength`), when it asks for something no validator here
enforces (`unevaluatedProperties`, `$dynamicRef`, a reference to another document), when a
`$ref` points to nothing, when `required` names a property that no keyword describes, when
references loop without ever reaching a value (`A: {$ref: B}`, `B: {$ref: A}`), or when it is
nested deeper than any tool needs.

Recursive schemas that go through a value (a tree whose `children` items refer back to the
node) are fine: each step of the recursion consumes a level of the arguments.

This is a hand-written subset of the meta-schema, not the meta-schema itself: importing a
full validator costs about 120 ms, more than defining every built-in tool.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

from tooldeck._core.schemas.keywords import SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP
from tooldeck._core.schemas.refs import RefError, find_anchors, resolve
from tooldeck.errors import ToolDefinitionError

MAX_SCHEMA_DEPTH: Final = 64

# Keywords whose meaning needs machinery this package does not have; refusing them is the
# honest alternative to accepting a schema and then not enforcing part of it.
UNSUPPORTED: Final = {
    "unevaluatedProperties": "it needs annotation tracking across subschemas; use additionalProperties",
    "unevaluatedItems": "it needs annotation tracking across subschemas; use items",
    "$dynamicRef": "dynamic references are not resolved; use $ref",
    "$dynamicAnchor": "dynamic references are not resolved; use $anchor",
    "$recursiveRef": "dynamic references are not resolved; use $ref",
    "$recursiveAnchor": "dynamic references are not resolved; use $anchor",
}
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
           "minContains", "maxContains")  # fmt: skip
_STRINGS = ("title", "description", "format", "$comment", "contentEncoding", "contentMediaType", "$anchor")
_BOOLEANS = ("uniqueItems", "deprecated", "readOnly", "writeOnly")
# Keywords that apply their subschemas to the same value (not to a member or an item): a
# reference loop through these alone never reaches a smaller value.
_SAME_VALUE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")


def keyword_problem(key: str, value: Any) -> str | None:
    """What is wrong with one keyword's value, or None (also None for keywords with no rule).
    Callers on a hot path look `KEYWORD_RULES` up themselves and call this only on a miss."""
    rule = KEYWORD_RULES.get(key)
    if rule is None or type(value) in rule[0]:
        return None
    problem: str | None = rule[1](value)
    return problem


def node_problem(
    node: Mapping[str, Any], *, root: bool = False, value: bool = True
) -> tuple[str, str] | None:
    """The problem of one schema node that no single keyword shows: a `patternProperties` name
    that is not a regular expression, or a required name no property declares (checked only
    where the node describes a value of its own, not where it refines its parent). Keyword values
    are checked by `keyword_problem`; subschemas by the walk that calls this."""
    for pattern in node.get("patternProperties", ()):
        problem = _regex_problem(pattern)
        if problem is not None:
            return "patternProperties", problem
    if "required" in node and value and (root or "properties" in node):
        return _ghost_problem(node)
    return None


def check_references(root: Mapping[str, Any], *, tool: str, nested_ids: list[str]) -> None:
    """Every `$ref` resolves inside the document and no reference loop skips the value."""
    if nested_ids:
        raise ToolDefinitionError(
            f"tool {tool!r}: {nested_ids[0]}: an embedded schema with its own $id is not supported "
            "where references are used; move it into $defs"
        )
    anchors = find_anchors(root)
    try:
        for node, where in _ref_nodes(root):
            try:
                resolve(root, node["$ref"], anchors)
            except RefError as exc:
                raise ToolDefinitionError(f"tool {tool!r}: {where}.$ref: {exc}") from None
        _find_ref_loop(root, anchors, tool)
    except RecursionError:
        raise ToolDefinitionError(f"tool {tool!r}: parameters: references chain too deeply") from None


def _ref_nodes(root: Any) -> list[tuple[Mapping[str, Any], str]]:
    found: list[tuple[Mapping[str, Any], str]] = []
    stack: list[tuple[Any, str]] = [(root, "parameters")]
    while stack:
        node, where = stack.pop()
        if not isinstance(node, Mapping):
            continue
        if "$ref" in node:
            found.append((node, where))
        for key, value in node.items():
            if key in SUBSCHEMA:
                stack.append((value, f"{where}.{key}"))
            elif key in SUBSCHEMA_LIST and isinstance(value, list):
                stack.extend((v, f"{where}.{key}[{i}]") for i, v in enumerate(value))
            elif key in SUBSCHEMA_MAP and isinstance(value, Mapping):
                stack.extend((v, f"{where}.{key}.{n}") for n, v in value.items())
    return found


def _ghost_problem(node: Mapping[str, Any]) -> tuple[str, str] | None:
    """A required name that no keyword of this node describes is a typo or a leftover."""
    props = node.get("properties", {})
    for name in node["required"]:
        if name not in props:
            break
    else:
        return None  # the common case: every required name is a declared property
    if any(k in node for k in ("$ref", "allOf", "anyOf", "oneOf", "if", "dependentSchemas")):
        return None  # a sibling may describe it
    if isinstance(node.get("additionalProperties"), Mapping):
        return None
    patterns = [re.compile(p) for p in node.get("patternProperties", {})]
    ghosts = [n for n in node["required"] if n not in props and not any(p.search(n) for p in patterns)]
    if not ghosts:
        return None
    return "required", (
        f"requires {', '.join(repr(g) for g in ghosts)}, which no property declares; "
        "declare it under properties or remove it from required"
    )


def _regex_problem(pattern: Any) -> str | None:
    if not isinstance(pattern, str):
        return f"a pattern must be a string, got {type(pattern).__name__}"
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"{pattern!r} is not a regular expression this validator can run: {exc}"
    return None


def _find_ref_loop(root: Mapping[str, Any], anchors: dict[str, Any], tool: str) -> None:
    """Refuse references that reach themselves through same-value keywords only."""
    state: dict[int, int] = {}  # id(node) -> 1 while on the current path, 2 when done

    def same_value_children(node: Any) -> list[tuple[Any, str]]:
        if not isinstance(node, Mapping):
            return []
        out: list[tuple[Any, str]] = []
        if "$ref" in node:
            out.append((resolve(root, node["$ref"], anchors), node["$ref"]))
        for key in _SAME_VALUE:
            value = node.get(key)
            if isinstance(value, list):
                out.extend((v, key) for v in value)
            elif isinstance(value, Mapping) and key == "dependentSchemas":
                out.extend((v, key) for v in value.values())
            elif value is not None:
                out.append((value, key))
        return out

    def visit(node: Any, trail: list[str]) -> None:
        state[id(node)] = 1
        for child, via in same_value_children(node):
            seen = state.get(id(child))
            if seen == 1:
                loop = " -> ".join([*trail, via])
                raise ToolDefinitionError(
                    f"tool {tool!r}: parameters: the references {loop} loop back without ever "
                    "reaching a value, so no argument could be checked against them"
                )
            if seen is None:
                visit(child, [*trail, via])
        state[id(node)] = 2

    for node, _ in _ref_nodes(root):
        if id(node) not in state:
            visit(node, [])


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_count(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return value >= 0 and float(value).is_integer()


def _required_rule(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        return "must be a list of property names"
    if len(value) > 1 and len(set(value)) != len(value):
        return f"names a property twice: {value!r}"
    return None


def _dependent_required_rule(value: Any) -> str | None:
    if isinstance(value, Mapping) and all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in value.values()
    ):
        return None
    return "must map property names to lists of property names"


def _shape(test: Any, wanted: str) -> Any:
    def rule(value: Any) -> str | None:
        return None if test(value) else f"must be {wanted}, got {value!r}"[:200]

    return rule


def _unsupported(key: str) -> Any:
    def rule(value: Any) -> str:
        return f"the keyword {key!r} is not supported: {UNSUPPORTED[key]}"

    return rule


Rule = tuple[frozenset[type], Any]
_NONE: frozenset[type] = frozenset()
_NUMBER = _shape(_is_number, "a finite number")
_COUNT = _shape(_is_count, "a whole number >= 0")
_STRING = _shape(lambda v: isinstance(v, str), "a string")
_BOOLEAN = _shape(lambda v: isinstance(v, bool), "true or false")

# keyword -> (value types that are always fine, the check for any other value). The first part
# lets the common case (a string description, an integer bound) pass without a function call.
# `type` has no entry: normalisation has already refused what names no type.
KEYWORD_RULES: dict[str, Rule] = {
    "required": (_NONE, _required_rule),
    "dependentRequired": (_NONE, _dependent_required_rule),
    "enum": (frozenset({list}), _shape(lambda v: isinstance(v, list), "a list of the allowed values")),
    "multipleOf": (_NONE, _shape(lambda v: _is_number(v) and v > 0, "a number greater than 0")),
    "$ref": (frozenset({str}), _STRING),
    "examples": (frozenset({list}), _shape(lambda v: isinstance(v, list), "a list of examples")),
    "pattern": (_NONE, _regex_problem),
    **dict.fromkeys(_NUMBERS, (frozenset({int}), _NUMBER)),
    **dict.fromkeys(_COUNTS, (_NONE, _COUNT)),
    **dict.fromkeys(_STRINGS, (frozenset({str}), _STRING)),
    **dict.fromkeys(_BOOLEANS, (frozenset({bool}), _BOOLEAN)),
    **{k: (_NONE, _unsupported(k)) for k in UNSUPPORTED},
}
