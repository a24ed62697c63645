"""Provider sanitizers: small rewrites for endpoints that accept less than their dialect.

Each sanitizer is a class with `node` / `root` hooks that run inside the dialect's single
schema walk (after the dialect's own rewrite). A model profile (`profiles.py`) chooses which
ones apply, so provider quirks live here as composable classes, never as `if provider == ...`
branches in the renderers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from tooldeck._core.dialects.walk import WalkState
from tooldeck._core.schemas.keywords import JsonSchema

ROOT_COMBINATORS = ("allOf", "anyOf", "oneOf")


class Sanitizer:
    """Base: a no-op. Subclasses override `node` and/or `root` (they may change `schema` in place)."""

    name: ClassVar[str] = "sanitizer"

    def prepare(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return schema

    def node(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return schema

    def root(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return schema

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def describe_values(schema: JsonSchema, values: Iterable[Any], label: str = "Allowed values") -> None:
    """Move a constraint the provider cannot take into the description, so the model still sees it."""
    text = f"{label}: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "."
    old = schema.get("description")
    schema["description"] = f"{old} {text}" if isinstance(old, str) and old else text


def flatten_root_combinators(
    schema: JsonSchema, state: WalkState, *, also: tuple[str, ...] = ()
) -> JsonSchema:
    """Fold top-level `allOf`/`anyOf`/`oneOf` into one object schema (for endpoints that reject them).

    `allOf` branches add their properties and required names; `anyOf`/`oneOf` branches add their
    properties as optional, and only the names every branch requires stay required. The argument
    values the tool accepts do not change; the handler still validates the exact combination.
    """
    present = [k for k in (*ROOT_COMBINATORS, *also) if k in schema]
    if not present:
        return schema
    out = {k: v for k, v in schema.items() if k not in present}
    props: dict[str, Any] = dict(out.get("properties") or {})
    required: list[str] = list(out.get("required") or [])
    for branch in _branches(schema, "allOf", state):
        props.update({k: v for k, v in (branch.get("properties") or {}).items() if k not in props})
        required += [r for r in branch.get("required", ()) if r not in required]
    for key in ("anyOf", "oneOf"):
        branches = _branches(schema, key, state)
        common: set[str] | None = None
        for branch in branches:
            for name, sub in (branch.get("properties") or {}).items():
                props.setdefault(name, sub)
            names = set(branch.get("required", ()))
            common = names if common is None else common & names
        required += sorted((common or set()) - set(required))
    state.note(f"top-level {'/'.join(present)} folded into one object schema")
    out["type"] = "object"
    out["properties"] = props
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def _branches(schema: JsonSchema, key: str, state: WalkState) -> list[Mapping[str, Any]]:
    """The branches of a root combinator, a `$ref` branch read through to its target."""
    out = []
    for branch in schema.get(key, ()):
        ref = branch.get("$ref") if isinstance(branch, Mapping) else None
        if isinstance(ref, str):
            name = state.def_name(ref)
            branch = state.defs[name] if name is not None else state.resolve(ref)
        if isinstance(branch, Mapping):
            out.append(branch)
    return out


class TopLevelCombinators(Sanitizer):
    """OpenAI's Codex backend: no `allOf`/`anyOf`/`oneOf`/`enum`/`not` at the top of parameters."""

    name = "top-level-combinators"

    def prepare(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return flatten_root_combinators(schema, state, also=("enum", "not"))


class NoPatternFormat(Sanitizer):
    """xAI: grammar compilation rejects many `pattern`s and `format`s, and enums containing '/'."""

    name = "xai"

    def node(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        for key in ("pattern", "format"):
            if key in schema:
                value = schema.pop(key)
                state.note(f"xai: dropped {key} {value!r}")
        enum = schema.get("enum")
        if isinstance(enum, list) and any(isinstance(v, str) and "/" in v for v in enum):
            del schema["enum"]
            describe_values(schema, enum)
            state.note("xai: enum with '/' in a value moved into the description")
        return schema


class Moonshot(Sanitizer):
    """Moonshot/Kimi: every property typed, `type` only on `anyOf` children, no null branches,
    no `nullable`, a `required` array on every object, no null/empty enum members."""

    name = "moonshot"

    def node(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        kind = schema.get("type")
        if isinstance(kind, list):
            rest = [k for k in kind if k != "null"]
            if len(rest) == 1:
                schema["type"] = rest[0]
            else:
                del schema["type"]
                schema["anyOf"] = [{"type": k} for k in rest] or [{"type": "string"}]
        schema.pop("nullable", None)
        union = schema.get("anyOf")
        if isinstance(union, list):
            union = [b for b in union if b.get("type") != "null"] or union
            if len(union) == 1 and "$ref" not in union[0]:
                del schema["anyOf"]
                schema.pop("type", None)
                schema = {**union[0], **schema}
            else:
                schema["anyOf"] = union
                if schema.pop("type", None) is not None:
                    state.note("moonshot: type moved from the anyOf parent to its branches")
        if "type" not in schema and not ({"$ref", "anyOf", "oneOf", "allOf"} & schema.keys()):
            schema["type"] = _guess_type(schema)
            state.note(f"moonshot: untyped schema given type {schema['type']!r}")
        enum = schema.get("enum")
        if isinstance(enum, list) and schema.get("type") in ("string", "integer", "number", "boolean"):
            kept = [v for v in enum if v is not None and v != ""]
            if kept:
                schema["enum"] = kept
            else:
                del schema["enum"]
        if schema.get("type") == "object" and "required" not in schema:
            schema["required"] = []
        return schema

    def root(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        schema.setdefault("required", [])
        return schema


def _guess_type(schema: JsonSchema) -> str:
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    sample = schema.get("const", (schema.get("enum") or [None])[0])
    if isinstance(sample, bool):
        return "boolean"
    if isinstance(sample, int):
        return "integer"
    if isinstance(sample, float):
        return "number"
    return "string"
