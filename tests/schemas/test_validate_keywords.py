"""The validator's keywords one by one: what is accepted, what each refusal says, and how the
lenient conversions behave inside combinators."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck._core.schemas.validate import SchemaValidator


def errors(schema: dict[str, Any], value: Any) -> list[str]:
    return SchemaValidator({"type": "object", "properties": {"x": schema}}).validate({"x": value})[1]


def converted(schema: dict[str, Any], value: Any) -> Any:
    out, problems = SchemaValidator({"type": "object", "properties": {"x": schema}}).validate({"x": value})
    assert problems == []
    return out["x"]


def test_one_of_means_exactly_one() -> None:
    schema = {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}
    assert errors(schema, -3) == []  # only the first form
    assert errors(schema, 0.5) == []  # only the second
    assert errors(schema, 3) == [
        "field 'x': matches more than one of the allowed forms (forms 1 and 2); exactly one must match (integer 3)"
    ]
    assert errors(schema, "a") == ["field 'x': matches none of the allowed forms (string 'a')"]


def test_any_of_and_one_of_together_both_apply() -> None:
    schema = {
        "anyOf": [{"type": "string"}, {"type": "integer"}],
        "oneOf": [{"minLength": 2}, {"maxLength": 3}],
    }
    assert errors(schema, "abcd") == []  # anyOf: string; oneOf: minLength only
    assert errors(schema, "ab")  # both oneOf forms match
    assert errors(schema, 7)  # an integer matches both length forms (they ignore non-strings)
    assert errors(schema, [])


def test_not_if_then_else_and_dependent_keywords() -> None:
    assert errors({"not": {"type": "string"}}, "s") == [
        "field 'x': must not match {\"type\": \"string\"} (string 's')"
    ]
    assert errors({"not": {"type": "string"}}, 3) == []
    conditional = {"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}
    assert errors(conditional, 15) == [] and errors(conditional, 2) == []
    assert errors(conditional, 12) == ["field 'x': must be a multiple of 5, got integer 12"]
    assert errors(conditional, 5) == ["field 'x': must be <= 3, got integer 5"]
    dependent = {"type": "object", "dependentSchemas": {"card": {"required": ["cvv"]}}}
    assert errors(dependent, {"card": 1}) == ["missing required field 'x.cvv'"]


def test_object_size_names_and_pattern_properties() -> None:
    sized = {"type": "object", "minProperties": 1, "maxProperties": 2}
    assert errors(sized, {}) == ["field 'x': must have at least 1 properties (has 0)"]
    assert errors(sized, {"a": 1, "b": 2, "c": 3}) == ["field 'x': must have at most 2 properties (has 3)"]
    patterned = {
        "type": "object",
        "patternProperties": {"^n_": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert converted(patterned, {"n_a": "4"}) == {"n_a": 4}
    assert errors(patterned, {"other": 1}) == ["unknown field 'x.other' (known fields: none)"]
    named = {"type": "object", "propertyNames": {"maxLength": 3}}
    assert errors(named, {"long_name": 1}) == [
        "field 'x.long_name': the name 'long_name' is not an allowed property name"
    ]


def test_contains_with_min_and_max() -> None:
    schema = {"type": "array", "contains": {"type": "string"}, "minContains": 2, "maxContains": 3}
    assert errors(schema, ["a", 1, "b"]) == []
    assert errors(schema, ["a", 1]) == [
        'field \'x\': must contain at least 2 item(s) matching {"type": "string"}'
    ]
    assert errors(schema, list("abcd")) == [
        'field \'x\': must contain at most 3 item(s) matching {"type": "string"}'
    ]


def test_integers_numbers_and_booleans_are_told_apart() -> None:
    assert errors({"type": "integer"}, True) == ["field 'x': expected integer, got boolean true"]
    assert errors({"type": "number"}, False) == ["field 'x': expected number, got boolean false"]
    assert errors({"enum": [1, 2]}, True) == ["field 'x': expected one of 1, 2, got boolean true"]
    assert errors({"const": 0}, False) == ["field 'x': expected 0, got boolean false"]
    assert converted({"type": "integer"}, 2.0) == 2 and type(converted({"type": "integer"}, 2.0)) is int
    assert converted({"enum": [1, 2]}, 1.0) == 1.0  # JSON-equal to 1
    assert errors({"type": "array", "uniqueItems": True}, [1, True]) == []
    assert errors({"type": "array", "uniqueItems": True}, [1, 1.0]) == ["field 'x': items must be unique"]


def test_null_is_described_once() -> None:
    assert errors({"type": "integer"}, None) == []  # an optional field sent as null means "not given"
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert SchemaValidator(schema).validate({"n": None})[1] == ["field 'n': expected integer, got null"]


def test_multiple_of_reads_decimal_divisors_as_written() -> None:
    assert errors({"multipleOf": 0.1}, 0.3) == []
    assert errors({"multipleOf": 0.01}, 19.99) == []
    assert errors({"multipleOf": 0.1}, 0.35) == ["field 'x': must be a multiple of 0.1, got number 0.35"]
    assert errors({"multipleOf": 3}, 10.5) == ["field 'x': must be a multiple of 3, got number 10.5"]
    assert errors({"multipleOf": 0.5}, 1e308) == []


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, "5", "5"),  # valid as sent: kept
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "7", 7),  # converted by the first form that can
        ({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, "true", True),
        ({"allOf": [{"type": "integer"}, {"minimum": 3}]}, "4", 4),
        ({"type": "array", "items": {"type": "integer"}}, '["1", 2]', [1, 2]),
    ],
)
def test_lenient_conversions_inside_combinators(schema: dict[str, Any], value: Any, expected: Any) -> None:
    result = converted(schema, value)
    assert result == expected and type(result) is type(expected)


def test_a_conversion_that_two_forms_accept_is_refused_by_one_of() -> None:
    # "5" converts to 5, which is both an integer and a number: not exactly one form.
    assert errors({"oneOf": [{"type": "integer"}, {"type": "number"}]}, "5") == [
        "field 'x': matches none of the allowed forms (string '5')"
    ]


def test_a_conversion_is_rechecked_strictly() -> None:
    # The string form converts 5 to "5", the integer form would take "5" back to 5: the value
    # that comes out must satisfy both, and none can.
    schema = {"allOf": [{"type": "string"}, {"type": "integer"}]}
    assert errors(schema, 5)
    assert errors(schema, "5")


def test_every_failing_field_is_reported_with_missing_ones() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "required": ["a", "c"],
        "additionalProperties": False,
    }
    problems = SchemaValidator(schema).validate({"a": "x", "d": 1})[1]
    assert problems == [
        "missing required field 'c'",
        "field 'a': expected integer, got string 'x'",
        "unknown field 'd' (known fields: a, b)",
    ]
