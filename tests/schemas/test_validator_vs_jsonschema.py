"""The argument validator's verdicts equal jsonschema's (Draft 2020-12) on generated schemas and
instances, and its lenient conversions never produce a value jsonschema refuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tooldeck._core.schemas.validate import SchemaValidator

# Hypothesis describes the nested strategies in its failure reports; that text is long, not wrong.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

NAMES = ["a", "b", "c", "ab"]
KEYS = st.sampled_from(NAMES)
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
SMALL = st.integers(min_value=0, max_value=3)
NUMBERS = st.integers(min_value=-5, max_value=5) | st.sampled_from([0.5, -1.5, 2.0, 1e300])

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 1, 1.0, 2.5, 0.5, 0.25, 3.0])
    | st.text(alphabet="ab0 ", max_size=4)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=10,
)


def leaf_keywords() -> st.SearchStrategy[dict[str, Any]]:
    one = st.one_of(
        st.builds(lambda t: {"type": t}, TYPES),
        st.builds(lambda ts: {"type": ts}, st.lists(TYPES, min_size=1, max_size=3, unique=True)),
        st.builds(lambda vs: {"enum": vs}, st.lists(SCALARS | st.lists(SCALARS, max_size=2), max_size=3)),
        st.builds(lambda v: {"const": v}, SCALARS),
        st.builds(lambda k, n: {k: n}, st.sampled_from(["minimum", "maximum"]), NUMBERS),
        st.builds(lambda k, n: {k: n}, st.sampled_from(["exclusiveMinimum", "exclusiveMaximum"]), NUMBERS),
        st.builds(lambda m: {"multipleOf": m}, st.sampled_from([1, 2, 3, 0.5, 0.25])),
        st.builds(lambda k, n: {k: n}, st.sampled_from(["minLength", "maxLength"]), SMALL),
        st.builds(lambda p: {"pattern": p}, st.sampled_from(["^a", "b$", "[0-9]", "^$", "a+b"])),
        st.builds(lambda k, n: {k: n}, st.sampled_from(["minItems", "maxItems"]), SMALL),
        st.builds(lambda u: {"uniqueItems": u}, st.booleans()),
        st.builds(lambda k, n: {k: n}, st.sampled_from(["minProperties", "maxProperties"]), SMALL),
        st.builds(lambda r: {"required": r}, st.lists(KEYS, max_size=2, unique=True)),
        st.builds(
            lambda d: {"dependentRequired": d},
            st.dictionaries(KEYS, st.lists(KEYS, max_size=2, unique=True), max_size=2),
        ),
    )
    return st.lists(one, min_size=1, max_size=3).map(
        lambda parts: {k: v for p in parts for k, v in p.items()}
    )


def applied(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    subs = st.lists(inner, min_size=1, max_size=3)
    one = st.one_of(
        st.builds(lambda p: {"properties": p}, st.dictionaries(KEYS, inner, max_size=3)),
        st.builds(lambda s: {"additionalProperties": s}, inner),
        st.builds(lambda s: {"patternProperties": {"^a": s}}, inner),
        st.builds(lambda s: {"propertyNames": s}, inner),
        st.builds(lambda s: {"items": s}, inner),
        st.builds(lambda ss: {"prefixItems": ss}, subs),
        st.builds(
            lambda s, lo, hi: {"contains": s, **lo, **hi},
            inner,
            st.just({}) | st.builds(lambda n: {"minContains": n}, SMALL),
            st.just({}) | st.builds(lambda n: {"maxContains": n}, SMALL),
        ),
        st.builds(lambda ss: {"allOf": ss}, subs),
        st.builds(lambda ss: {"anyOf": ss}, subs),
        st.builds(lambda ss: {"oneOf": ss}, subs),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda i, t, e: {"if": i, "then": t, "else": e}, inner, inner, inner),
        st.builds(lambda d: {"dependentSchemas": d}, st.dictionaries(KEYS, inner, max_size=2)),
        st.sampled_from([{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]),
    )
    return st.lists(one | leaf_keywords(), min_size=1, max_size=3).map(
        lambda parts: {k: v for p in parts for k, v in p.items()}
    )


LEAVES = st.booleans() | leaf_keywords()
REF_FREE = st.recursive(LEAVES, lambda inner: applied(inner).filter(lambda s: "$ref" not in s), max_leaves=6)
SCHEMAS = st.recursive(LEAVES, applied, max_leaves=8)


@st.composite
def roots(draw: st.DrawFn) -> Any:
    """A schema whose definitions are A (refers to nothing) and B (may refer to A), so the
    references never form a cycle. (A composite keeps Hypothesis' reports short.)"""
    body = draw(SCHEMAS)
    if not isinstance(body, dict):
        return body
    a, b = draw(REF_FREE), draw(REF_FREE)
    return {**body, "$defs": {"A": a, "B": {"allOf": [b, {"$ref": "#/$defs/A"}]}}}


@st.composite
def instances(draw: st.DrawFn) -> list[Any]:
    return draw(st.lists(VALUES, min_size=1, max_size=5))


@st.composite
def argument_objects(draw: st.DrawFn) -> dict[str, Any]:
    sent_as_text = st.sampled_from(["5", "2.5", "true", "null", "[1]", '{"a": 1}'])
    return draw(st.dictionaries(KEYS, VALUES | sent_as_text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(roots(), instances())
def test_strict_verdicts_equal_jsonschema(schema: Any, instances: list[Any]) -> None:
    ours = SchemaValidator(schema)
    theirs = Draft202012Validator(schema)
    for instance in instances:
        assert ours.is_valid(instance) == theirs.is_valid(instance), (schema, instance)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(roots(), argument_objects())
def test_lenient_conversions_only_ever_yield_valid_values(schema: Any, arguments: dict[str, Any]) -> None:
    out, errors = SchemaValidator(schema).validate(arguments)
    theirs = Draft202012Validator(schema)
    if not errors:
        assert theirs.is_valid(out), (schema, arguments, out)
    if theirs.is_valid(arguments):
        # A valid value is never converted; only a null for an optional field may be dropped.
        assert not errors, (schema, arguments, errors)
        assert {k: v for k, v in arguments.items() if v is not None} == {
            k: v for k, v in out.items() if v is not None
        }


# JSON equality (enum, const, uniqueItems): values drawn from one small pool so that 1 meets
# 1.0 and true meets 1 often.
POOL = st.recursive(
    st.sampled_from([0, 1, 1.0, 0.0, True, False, None, "1", "a"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=4,
)


@st.composite
def equality_cases(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any]]:
    kind = draw(st.sampled_from(["enum", "const", "uniqueItems"]))
    if kind == "enum":
        schema: dict[str, Any] = {"enum": draw(st.lists(POOL, max_size=4))}
    elif kind == "const":
        schema = {"const": draw(POOL)}
    else:
        schema = {"uniqueItems": True}
    values = draw(st.lists(POOL | st.lists(POOL, max_size=4), min_size=1, max_size=6))
    return schema, values


@settings(max_examples=250, deadline=None)
@given(equality_cases())
def test_json_equality_matches_jsonschema(case: tuple[dict[str, Any], list[Any]]) -> None:
    schema, values = case
    ours, theirs = SchemaValidator(schema), Draft202012Validator(schema)
    for value in values:
        assert ours.is_valid(value) == theirs.is_valid(value), (schema, value)
