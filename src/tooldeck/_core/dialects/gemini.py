"""Google Gemini API: `function_declarations[]` items `{"name", "description", "parameters"}`.

`parameters` is Gemini's `Schema`, a subset of OpenAPI 3.0, not JSON Schema: no `$ref`,
`additionalProperties`, `const`, `oneOf`/`allOf`/`not`, type lists or `exclusiveMinimum`;
`enum` only on strings; `nullable: true` instead of a `null` type; `required` names must be
listed properties. Everything is rewritten into that subset; a constraint with no equivalent
(a numeric enum, a `const` number) moves into the description so the model still reads it.
A tool without arguments omits `parameters`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck._core.dialects.base import Dialect
from tooldeck._core.dialects.sanitize import describe_values, flatten_root_combinators
from tooldeck._core.dialects.walk import SchemaTransformer, WalkState
from tooldeck._core.schemas.keywords import JsonSchema

GEMINI_KEYWORDS = frozenset(
    {
        "anyOf",
        "default",
        "description",
        "enum",
        "example",
        "format",
        "items",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "nullable",
        "pattern",
        "properties",
        "propertyOrdering",
        "required",
        "title",
        "type",
    }
)
GEMINI_FORMATS: dict[str, frozenset[str]] = {
    "string": frozenset({"enum", "date-time"}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}


class GeminiSchema(SchemaTransformer):
    inline_refs = True

    def node(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        _type_list(schema)
        if "oneOf" in schema:
            schema["anyOf"] = [*schema.get("anyOf", ()), *schema.pop("oneOf")]
        if "allOf" in schema:
            schema = _merge_all_of(schema, state)
        if "anyOf" in schema:
            schema = _collapse_union(schema)
        if "const" in schema:
            const = schema.pop("const")
            if isinstance(const, str):
                schema["enum"] = [const]
                schema.setdefault("type", "string")
            else:
                describe_values(schema, [const], "Must be")
        if "enum" in schema:
            _enum(schema)
        _bounds(schema)
        if "examples" in schema and isinstance(schema["examples"], list) and schema["examples"]:
            schema.setdefault("example", schema["examples"][0])
        items = schema.get("items")
        if isinstance(items, list):
            schema["items"] = items[0] if len(items) == 1 else {"anyOf": items}
        elif isinstance(items, bool):
            del schema["items"]
        fmt = schema.get("format")
        if fmt is not None and fmt not in GEMINI_FORMATS.get(schema.get("type", ""), ()):
            del schema["format"]
        dropped = [k for k in schema if k not in GEMINI_KEYWORDS]
        for key in dropped:
            del schema[key]
        if dropped:
            state.note("gemini: dropped " + ", ".join(sorted(dropped)))
        _required(schema)
        if schema.get("default", 0) is None and not schema.get("nullable"):
            del schema["default"]
        return schema

    def prepare(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return flatten_root_combinators(schema, state)

    def root(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        schema["type"] = "object"
        schema.pop("nullable", None)
        return schema


def _type_list(schema: JsonSchema) -> None:
    kind = schema.get("type")
    if not isinstance(kind, list):
        return
    rest = [k for k in kind if k != "null"]
    if len(rest) < len(kind):
        schema["nullable"] = True
    if len(rest) == 1:
        schema["type"] = rest[0]
    elif not rest:
        schema["type"] = "null"
    else:
        del schema["type"]
        schema["anyOf"] = [*schema.get("anyOf", ()), *({"type": k} for k in rest)]


def _collapse_union(schema: JsonSchema) -> JsonSchema:
    """`anyOf: [X, null]` -> X with `nullable: true` (metadata of the outer node wins)."""
    branches = schema["anyOf"]
    rest = [b for b in branches if b.get("type") != "null"]
    if len(rest) < len(branches):
        schema["nullable"] = True
    if len(rest) == 1:
        del schema["anyOf"]
        merged = {**rest[0], **schema}
        if rest[0].get("nullable") or schema.get("nullable"):
            merged["nullable"] = True
        return merged
    if not rest:
        del schema["anyOf"]
        schema.setdefault("type", "null")
        return schema
    schema["anyOf"] = rest
    return schema


def _merge_all_of(schema: JsonSchema, state: WalkState) -> JsonSchema:
    """Gemini has no `allOf`: merge the branches into one schema (first value of a key wins)."""
    merged: JsonSchema = {k: v for k, v in schema.items() if k != "allOf"}
    for branch in schema["allOf"]:
        for key, value in branch.items():
            if key == "properties":
                props = merged.setdefault("properties", {})
                for name, sub in value.items():
                    props.setdefault(name, sub)
            elif key == "required":
                merged["required"] = [
                    *merged.get("required", ()),
                    *(r for r in value if r not in merged.get("required", ())),
                ]
            else:
                merged.setdefault(key, value)
    state.note("gemini: allOf merged into one schema")
    return merged


def _enum(schema: JsonSchema) -> None:
    values = schema["enum"]
    if not isinstance(values, list):
        del schema["enum"]
        return
    if None in values:
        schema["nullable"] = True
        values = [v for v in values if v is not None]
    if values and all(isinstance(v, str) for v in values) and schema.get("type", "string") == "string":
        schema["enum"] = values
        schema["type"] = "string"
        return
    del schema["enum"]
    if values:
        describe_values(schema, values)


def _bounds(schema: JsonSchema) -> None:
    if "exclusiveMinimum" not in schema and "exclusiveMaximum" not in schema:
        return
    for flag, bound, step in (("exclusiveMinimum", "minimum", 1), ("exclusiveMaximum", "maximum", -1)):
        value = schema.pop(flag, None)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        # An integer bound can be made inclusive exactly; a number bound is kept inclusive.
        limit = value + step if schema.get("type") == "integer" and isinstance(value, int) else value
        old = schema.get(bound)
        if old is None or (limit > old if step == 1 else limit < old):
            schema[bound] = limit


def _required(schema: JsonSchema) -> None:
    props = schema.get("properties")
    if isinstance(props, dict) and not props:
        del schema["properties"]
        props = None
    required = schema.get("required")
    if required is None:
        return
    names = [r for r in required if isinstance(props, dict) and r in props]
    if names:
        schema["required"] = names
    else:
        del schema["required"]


class GeminiDialect(Dialect):
    name = "gemini"
    schema_transformer = GeminiSchema

    def envelope(self, name: str, description: str, parameters: JsonSchema, strict: bool) -> dict[str, Any]:
        declaration: dict[str, Any] = {"name": name}
        if description:
            declaration["description"] = description
        if parameters.get("properties"):
            declaration["parameters"] = parameters
        return declaration

    @staticmethod
    def parameters_of(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        params: Mapping[str, Any] | None = payload.get("parameters")
        return params


def request_tools(declarations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `tools` field of a Gemini `generateContent` request around rendered declarations."""
    return [{"function_declarations": declarations}] if declarations else []
