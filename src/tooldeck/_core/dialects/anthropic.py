"""Anthropic Messages: `{"name", "description", "input_schema"}`, and `input_examples` when the
tool has example arguments (the API takes them under the `advanced-tool-use-2025-11-20` beta,
which the agent's Anthropic client sends when a tool carries them).

`input_schema` is JSON Schema with `type: object` at the root; the API rejects `anyOf` /
`oneOf` / `allOf` at the top, so those are folded into one object schema (nested unions stay).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck._core.dialects.base import Dialect, JsonSchemaTransformer
from tooldeck._core.dialects.sanitize import flatten_root_combinators
from tooldeck._core.dialects.walk import WalkState
from tooldeck._core.schemas.keywords import JsonSchema


class AnthropicSchema(JsonSchemaTransformer):
    def prepare(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return flatten_root_combinators(schema, state)


class AnthropicDialect(Dialect):
    name = "anthropic"
    schema_transformer = AnthropicSchema
    native_examples = True

    def envelope(self, name: str, description: str, parameters: JsonSchema, strict: bool) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": name}
        if description:
            tool["description"] = description
        tool["input_schema"] = parameters
        return tool

    @staticmethod
    def parameters_of(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        params: Mapping[str, Any] | None = payload.get("input_schema")
        return params
