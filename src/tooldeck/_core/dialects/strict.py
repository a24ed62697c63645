"""OpenAI strict mode: make a schema strict when its meaning survives, or say why not.

Strict function calling constrains decoding to the schema, and only accepts a subset of JSON
Schema: every object lists all its properties in `required` and sets `additionalProperties:
false` (an optional property becomes nullable instead), `anyOf` but not `allOf`/`not`/`if`,
no free-form objects or maps, arrays with one `items` schema, at most 10 levels of object
nesting, 5,000 properties and 1,000 enum values in all.

`make_strict(schema)` returns the strict form, or the reason it cannot exist; it never returns
a schema OpenAI would reject. Keywords outside the subset that only describe (`default`,
`examples`, length limits...) are dropped, and a `default` is kept as words in the description.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tooldeck._core.schemas.keywords import JsonSchema

STRICT_KEYWORDS = frozenset(
    {
        "$defs",
        "$ref",
        "additionalProperties",
        "anyOf",
        "const",
        "description",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "format",
        "items",
        "maxItems",
        "maximum",
        "minItems",
        "minimum",
        "multipleOf",
        "pattern",
        "properties",
        "required",
        "title",
        "type",
    }
)
STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# Keywords whose meaning strict mode cannot express: their presence makes a schema non-strict.
BLOCKING = ("allOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas", "prefixItems")
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000


class _NotStrict(Exception):
    """Internal: carries the reason a schema has no strict form (never leaves this module)."""


@dataclass(slots=True)
class StrictResult:
    schema: JsonSchema | None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)


def make_strict(schema: JsonSchema) -> StrictResult:
    """The strict form of an (already dialect-rendered) parameters schema, or why there is none."""
    walker = _Strict()
    try:
        for key in ("anyOf", "oneOf", "enum"):
            if key in schema:
                raise _NotStrict(f"parameters: top-level {key} is not allowed in strict mode")
        out = walker.object_or_any(schema, "parameters", 0, root=True)
        defs = schema.get("$defs")
        if isinstance(defs, dict):
            out["$defs"] = {n: walker.any(s, f"$defs.{n}", 1) for n, s in defs.items()}
    except _NotStrict as exc:
        return StrictResult(None, str(exc))
    if walker.properties > MAX_PROPERTIES:
        return StrictResult(
            None, f"{walker.properties} properties in all; strict mode allows {MAX_PROPERTIES}"
        )
    if walker.enum_values > MAX_ENUM_VALUES:
        return StrictResult(
            None, f"{walker.enum_values} enum values in all; strict mode allows {MAX_ENUM_VALUES}"
        )
    return StrictResult(out, None, walker.notes)


class _Strict:
    def __init__(self) -> None:
        self.properties = 0
        self.enum_values = 0
        self.notes: list[str] = []

    def any(self, node: Any, path: str, depth: int) -> JsonSchema:
        if not isinstance(node, dict):
            raise _NotStrict(f"{path}: a boolean schema has no strict form")
        if "$ref" in node:
            return {"$ref": node["$ref"]}
        for key in BLOCKING:
            if key in node:
                raise _NotStrict(f"{path}: '{key}' is not supported in strict mode")
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if "object" in kinds:
            return self.object_or_any(node, path, depth)
        return self._scalar(node, path, depth)

    def object_or_any(self, node: JsonSchema, path: str, depth: int, *, root: bool = False) -> JsonSchema:
        if depth > MAX_DEPTH:
            raise _NotStrict(f"{path}: objects nested more than {MAX_DEPTH} levels deep")
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if extra not in (None, False):
            raise _NotStrict(f"{path}: additionalProperties (a map of free-form keys) has no strict form")
        if not props and not root and extra is not False:
            raise _NotStrict(f"{path}: a free-form object (no listed properties) has no strict form")
        if "anyOf" in node or "oneOf" in node:
            raise _NotStrict(f"{path}: an object with both properties and anyOf has no strict form")
        required = set(node.get("required") or ())
        out = self._keep(node, path)
        new_props: JsonSchema = {}
        for name, sub in props.items():
            self.properties += 1
            walked = self.any(sub, f"{path}.{name}", depth + 1)
            new_props[name] = walked if name in required else _nullable(walked, f"{path}.{name}")
        out["type"] = node.get("type", "object")
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False
        return out

    def _scalar(self, node: JsonSchema, path: str, depth: int) -> JsonSchema:
        out = self._keep(node, path)
        if "oneOf" in node:
            out["anyOf"] = node["oneOf"]
            self.notes.append(f"{path}: oneOf read as anyOf")
        if "anyOf" in out:
            out["anyOf"] = [self.any(b, f"{path}.anyOf[{i}]", depth) for i, b in enumerate(out["anyOf"])]
        elif "type" not in out and "enum" not in out and "const" not in out:
            raise _NotStrict(f"{path}: no type (any value) has no strict form")
        kind = out.get("type")
        if kind == "array" or (isinstance(kind, list) and "array" in kind):
            items = node.get("items")
            if not isinstance(items, dict):
                raise _NotStrict(f"{path}: an array needs one `items` schema in strict mode")
            out["items"] = self.any(items, f"{path}[]", depth + 1)
        if isinstance(out.get("enum"), list):
            self.enum_values += len(out["enum"])
        fmt = out.get("format")
        if fmt is not None and fmt not in STRICT_FORMATS:
            del out["format"]
            self.notes.append(f"{path}: format {fmt!r} dropped (not in strict mode's list)")
        return out

    def _keep(self, node: JsonSchema, path: str) -> JsonSchema:
        """The keywords strict mode takes as they are; structure is rebuilt by the caller."""
        out: JsonSchema = {}
        dropped = []
        for key, value in node.items():
            if key in _STRUCTURAL:
                continue
            if key in STRICT_KEYWORDS:
                out[key] = value
            elif key != "default":
                dropped.append(key)
        if node.get("default") is not None:
            text = f"Default: {json.dumps(node['default'], ensure_ascii=False)}."
            old = out.get("description")
            out["description"] = f"{old} {text}" if isinstance(old, str) and old else text
        if dropped:
            self.notes.append(f"{path}: {', '.join(sorted(dropped))} dropped for strict mode")
        return out


_STRUCTURAL = frozenset({"$defs", "additionalProperties", "items", "oneOf", "properties", "required"})


def _nullable(schema: JsonSchema, path: str) -> JsonSchema:
    """An optional property in strict mode: required, but null allowed."""
    if "$ref" in schema or "const" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    if "anyOf" in schema:
        if not any(b.get("type") == "null" for b in schema["anyOf"]):
            schema["anyOf"] = [*schema["anyOf"], {"type": "null"}]
        return schema
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "null":
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema
