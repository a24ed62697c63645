"""OpenAI Chat Completions: `{"type": "function", "function": {name, description, parameters}}`.

Parameters are JSON Schema as written (keywords and `default`s kept); `$defs` references stay,
other JSON pointers are expanded; with strict mode the function carries `"strict": true`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck._core.dialects.base import Dialect, JsonSchemaTransformer
from tooldeck._core.schemas.keywords import JsonSchema


class OpenAIChatDialect(Dialect):
    name = "openai"
    schema_transformer = JsonSchemaTransformer
    supports_strict = True

    def envelope(self, name: str, description: str, parameters: JsonSchema, strict: bool) -> dict[str, Any]:
        function: dict[str, Any] = {"name": name}
        if description:
            function["description"] = description
        function["parameters"] = parameters
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    @staticmethod
    def parameters_of(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        params: Mapping[str, Any] | None = payload["function"].get("parameters")
        return params
