"""The dialect base: one tool in, one provider-shaped tool object out.

A `Dialect` pairs a schema transformer (how parameters must look for that API) with an
envelope (how the tool object around them looks), plus the profile's sanitizers and, for
OpenAI, strict mode. `render` never mutates its input and reports everything it changed in
`RenderedTool.notes`, and why strict mode was refused in `strict_reason`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tooldeck._core.dialects.examples import fold_examples, split_examples
from tooldeck._core.dialects.profiles import DEFAULT_PROFILE, ModelProfile
from tooldeck._core.dialects.strict import make_strict
from tooldeck._core.dialects.walk import SchemaTransformer, WalkState
from tooldeck._core.schemas.keywords import JsonSchema
from tooldeck._core.schemas.normalize import normalize_parameters
from tooldeck.errors import ToolDefinitionError


@dataclass(frozen=True, slots=True)
class RenderedTool:
    """One tool as one provider expects it, and what rendering had to change."""

    name: str
    payload: dict[str, Any]
    notes: tuple[str, ...] = ()
    strict: bool = False
    # Set when strict mode was asked for and this tool's schema cannot be strict.
    strict_reason: str | None = None


class Dialect(ABC):
    """Renders tools for one provider API. Subclasses set `schema_transformer` and `envelope`."""

    name: ClassVar[str]
    schema_transformer: ClassVar[type[SchemaTransformer]]
    # The provider's rule for function names (all four: letters, digits, '_' and '-', <= 64).
    name_pattern: ClassVar[re.Pattern[str]] = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
    supports_strict: ClassVar[bool] = False
    # Takes a tool's example arguments as a field of its own (Anthropic's `input_examples`);
    # the others read them folded into the description (`examples.py`).
    native_examples: ClassVar[bool] = False

    def __init__(self, *, profile: ModelProfile = DEFAULT_PROFILE, strict: bool = False) -> None:
        self.profile = profile
        self.strict = strict and self.supports_strict
        self._transformer = self.schema_transformer(hooks=profile.sanitizers)

    def render(
        self,
        name: str,
        description: str,
        parameters: Mapping[str, Any],
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> RenderedTool:
        """Render one tool; `parameters` may be raw (it is normalised first, as `Tool` does);
        `examples` are its example arguments (`Tool.input_examples`)."""
        if not self.name_pattern.match(name):
            raise ToolDefinitionError(
                f"tool name {name!r} is not valid for {self.name}: must match {self.name_pattern.pattern}"
            )
        schema = normalize_parameters(parameters, tool=name)
        body, notes = self._transformer.transform(schema)
        notes = [*schema.notes, *notes]
        strict, reason = False, None
        if self.strict:
            result = make_strict(body)
            if result.schema is not None:
                body, strict = result.schema, True
                notes += result.notes
            else:
                reason = result.reason
        native: Sequence[Mapping[str, Any]] = ()
        if examples:
            native, folded = split_examples(body, examples) if self.native_examples else ((), examples)
            description, more = fold_examples(description or "", folded)
            notes += more
        payload = self.envelope(name, description or "", body, strict)
        if native:
            payload["input_examples"] = [dict(e) for e in native]
        return RenderedTool(name, payload, tuple(notes), strict, reason)

    @abstractmethod
    def envelope(self, name: str, description: str, parameters: JsonSchema, strict: bool) -> dict[str, Any]:
        """The provider's tool object around a rendered parameters schema."""

    @staticmethod
    def parameters_of(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The parameters schema inside a rendered tool object (for tests and token shares)."""
        return None


class JsonSchemaTransformer(SchemaTransformer):
    """Full JSON Schema dialects (OpenAI, Anthropic): keep keywords (the root's `$schema` and `$id`
    too, as MCP's JSON Schema 2020-12 rules ask of a client), fix the root's shape."""

    def root(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        schema["type"] = "object"
        if not isinstance(schema.get("properties"), dict):
            schema["properties"] = {}
        return schema
