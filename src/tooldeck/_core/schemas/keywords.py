"""Which JSON-Schema keywords hold subschemas and which hold literal values.

Every walker in this package decides what to recurse into from these tables, so a list or
object *value* (a `default`, a `const`, an `enum` member, an example) is never mistaken for a
schema — the mistake behind Hermes issue #55077, where list defaults were rewritten into
`{"type": "object"}` dicts.
"""

from __future__ import annotations

from typing import Any, Final

JsonSchema = dict[str, Any]

# Keyword -> one subschema (a bool is also a schema in these positions).
SUBSCHEMA: Final = frozenset(
    {
        "additionalItems",
        "additionalProperties",
        "contains",
        "else",
        "if",
        "items",  # may also be a list (draft-07 tuple form)
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
# Keyword -> a list of subschemas.
SUBSCHEMA_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# Keyword -> a map of name -> subschema.
SUBSCHEMA_MAP: Final = frozenset(
    {"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"}
)
# Every other keyword's value is data, never a schema: `const`, `default`, `enum`, `examples`,
# `required`... are copied as they are.

JSON_TYPES: Final = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})

# Non-standard type names seen in real tool schemas (BFCL, MCP servers, Java/JS generators).
# Keys are lower-case; `None` means "any type" (the `type` keyword is dropped).
TYPE_ALIASES: Final[dict[str, str | None]] = {
    "string": "string",
    "str": "string",
    "char": "string",
    "character": "string",
    "text": "string",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "bigint": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
    "dict": "object",
    "map": "object",
    "hashmap": "object",
    "record": "object",
    "array": "array",
    "list": "array",
    "arraylist": "array",
    "tuple": "array",
    "set": "array",
    "null": "null",
    "none": "null",
    "any": None,
    "": None,
}
