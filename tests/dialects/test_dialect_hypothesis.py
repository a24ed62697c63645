"""Hypothesis: generated schemas (valid, odd and broken in the ways real ones are) never crash a
transformer, and whatever comes out passes the dialect's validator."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck._core.dialects import DIALECTS, get_dialect
from tooldeck._core.schemas.normalize import normalize_parameters
from tooldeck.errors import ToolDefinitionError

from .dialect_validators import VALIDATORS

NAMES = st.sampled_from(["a", "b", "type", "items", "$ref", "default"])
TYPES = st.sampled_from(
    [
        "string",
        "integer",
        "number",
        "boolean",
        "object",
        "array",
        "null",
        "dict",
        "float",
        "any",
        "String",
        "tuple",
        "",
        "weird",
    ]
)
REFS = st.sampled_from(
    [
        "#",
        "#/properties/a",
        "#/$defs/A",
        "#/definitions/B",
        "#/properties/a/items",
        "#/nope",
        "http://x/y",
        "#/$defs/A/properties/a",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
)
VALUES = st.recursive(
    SCALARS, lambda c: st.lists(c, max_size=3) | st.dictionaries(NAMES, c, max_size=3), max_leaves=6
)


def _keywords(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": TYPES | st.lists(TYPES, max_size=3),
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "items": children | st.lists(children, max_size=2),
            "additionalProperties": st.booleans() | children,
            "anyOf": st.lists(children, max_size=3),
            "oneOf": st.lists(children, max_size=3),
            "allOf": st.lists(children, max_size=2),
            "not": children,
            "$ref": REFS,
            "enum": st.lists(SCALARS, max_size=3),
            "const": VALUES,
            "default": VALUES,
            "examples": st.lists(VALUES, max_size=2),
            "required": st.lists(NAMES, max_size=3, unique=True),
            "description": st.text(max_size=8),
            "exclusiveMinimum": st.booleans() | st.integers(-3, 3),
            "minimum": st.integers(-3, 3),
            "format": st.sampled_from(["uri", "date-time", "int32", "email", "float"]),
            "pattern": st.just("^a"),
            "nullable": st.booleans(),
            "optional": st.sampled_from(["True", False]),
            "$defs": st.dictionaries(st.sampled_from(["A", "B"]), children, max_size=2),
            "definitions": st.dictionaries(st.sampled_from(["A", "B"]), children, max_size=2),
        },
    )


LEAVES = st.booleans() | st.fixed_dictionaries(
    {}, optional={"type": TYPES, "$ref": REFS, "enum": st.lists(SCALARS)}
)
SCHEMAS = st.recursive(LEAVES, _keywords, max_leaves=10)
ROOTS = _keywords(SCHEMAS).map(lambda s: {**s, "type": "object"})


@pytest.fixture(autouse=True)
def _quiet_normaliser() -> Any:
    logging.getLogger("tooldeck.schemas").setLevel(logging.ERROR)
    yield
    logging.getLogger("tooldeck.schemas").setLevel(logging.NOTSET)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=ROOTS)
def test_generated_schemas_never_crash_and_always_validate(schema: dict[str, Any]) -> None:
    try:
        normalize_parameters(schema, tool="gen")
    except ToolDefinitionError:
        return  # a structurally broken schema is refused with a clear error; that is fine
    for dialect in sorted(DIALECTS):
        for strict in (False, True):
            rendered = get_dialect(dialect, strict=strict).render("gen", "d", schema)
            assert VALIDATORS[dialect](rendered.payload) == [], rendered.payload
            if strict and dialect in ("openai", "responses"):
                assert rendered.strict != bool(rendered.strict_reason)


@settings(max_examples=80, deadline=None)
@given(schema=ROOTS)
def test_normalisation_is_idempotent_and_leaves_the_input_alone(schema: dict[str, Any]) -> None:
    before = json.dumps(schema, sort_keys=True, default=str)
    try:
        once = normalize_parameters(schema, tool="gen")
    except ToolDefinitionError:
        return
    assert json.dumps(schema, sort_keys=True, default=str) == before
    twice = normalize_parameters(dict(once), tool="gen")  # a plain dict: normalised again
    assert twice == once
    assert twice.notes == ()
