"""OpenAI Responses: flat `{"type": "function", "name", "description", "parameters", "strict"}`.

The Responses API treats a missing `strict` as true, so it is always sent explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck._core.dialects.base import Dialect, JsonSchemaTransformer
from tooldeck._core.schemas.keywords import JsonSchema


class OpenAIResponsesDialect(Dialect):
    name = "responses"
    schema_transformer = JsonSchemaTransformer
    supports_strict = True

    def envelope(self, name: str, description: str, parameters: JsonSchema, strict: bool) -> dict[str, Any]:
        tool: dict[str, Any] = {"type": "function", "name": name}
        if description:
            tool["description"] = description
        tool["parameters"] = parameters
        tool["strict"] = strict
        return tool

    @staticmethod
    def parameters_of(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        params: Mapping[str, Any] | None = payload.get("parameters")
        return params
