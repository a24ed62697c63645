"""A tool schema that no validator could enforce is refused when the tool is defined, with the key
path; recursive schemas that go through a value work everywhere (validation, every dialect)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from tests.dialects.dialect_validators import VALIDATORS
from tests.execution.helpers import loadout, one

from tooldeck import Tool, ToolDefinitionError
from tooldeck._core.dialects import get_dialect
from tooldeck._core.execution.executor import Executor
from tooldeck._core.schemas.validate import SchemaValidator


def define(parameters: Any) -> Tool:
    return Tool(name="t", description="d", parameters=parameters, handler=lambda args: "ran")


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        (obj(a={"type": "strng"}), r"parameters\.properties\.a\.type: unknown type 'strng'"),
        (obj(a={"type": ["string", "nmber"]}), r"properties\.a\.type: unknown type 'nmber'"),
        (obj(a={"type": 5}), r"properties\.a\.type: type 5 is neither"),
        (obj(a=obj(b="strng")), r"parameters\.properties\.a\.properties\.b: unknown type 'strng'"),
        (
            obj(a={"$ref": "#/$defs/Missing"}),
            r"properties\.a\.\$ref: reference '#/\$defs/Missing' points to nothing",
        ),
        (obj(a={"$ref": "other.json#/x"}), r"properties\.a\.\$ref: reference 'other.json#/x' points outside"),
        (obj(a={"$ref": "https://example.com/s.json"}), "only local references"),
        (obj(a={"$ref": "#nowhere"}), "names an \\$anchor this schema does not define"),
        ({**obj(a={}), "required": ["ghost"]}, r"parameters\.required: requires 'ghost', which no property"),
        (obj(a={**obj(b={}), "required": ["b", "c"]}), r"properties\.a\.required: requires 'c'"),
        (
            obj(a={"type": "string", "minLength": -1}),
            r"properties\.a\.minLength: must be a whole number >= 0",
        ),
        (obj(a={"type": "string", "maxLength": 2.5}), r"maxLength: must be a whole number"),
        (obj(a={"type": "number", "multipleOf": 0}), r"multipleOf: must be a number greater than 0"),
        (obj(a={"type": "number", "minimum": "3"}), r"properties\.a\.minimum: must be a finite number"),
        (
            obj(a={"type": "string", "pattern": "(unclosed"}),
            r"properties\.a\.pattern: '\(unclosed' is not a regular",
        ),
        (
            obj(a={"type": "object", "patternProperties": {"[": {}}}),
            r"patternProperties: '\[' is not a regular",
        ),
        (obj(a={"enum": "red"}), r"properties\.a\.enum: must be a list of the allowed values"),
        (obj(a={"description": 7}), r"properties\.a\.description: must be a string"),
        (obj(a={"uniqueItems": "yes"}), r"uniqueItems: must be true or false"),
        ({**obj(a={}), "required": ["a", "a"]}, r"required: names a property twice"),
        (
            obj(a={"unevaluatedProperties": False}),
            r"properties\.a\.unevaluatedProperties: the keyword .* is not supported",
        ),
        (obj(a={"unevaluatedItems": False}), "is not supported: it needs annotation tracking"),
        (obj(a={"$dynamicRef": "#meta"}), r"\$dynamicRef.*is not supported"),
    ],
)
def test_what_no_validator_could_enforce_is_refused_with_the_path(parameters: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        define(parameters)


def test_required_names_described_by_another_keyword_are_accepted() -> None:
    define({**obj(a={}), "patternProperties": {"^x_": {"type": "string"}}, "required": ["x_1"]})
    define({**obj(a={}), "additionalProperties": {"type": "integer"}, "required": ["n"]})
    define({**obj(a={}), "allOf": [{"properties": {"b": {"type": "string"}}}], "required": ["b"]})
    # A branch that refines its parent may require the parent's properties, even with its own.
    define({**obj(a={}, b={}), "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})
    define({**obj(mode={}), "anyOf": [{"properties": {"path": {}}, "required": ["path", "mode"]}]})
    define({**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"properties": {"x": {}}, "required": ["y"]}}})


LOOPS = [
    {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}},
    obj(a={"$ref": "#/properties/a"}),
    {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"allOf": [{"type": "object"}, {"$ref": "#/$defs/A"}]}}},
    {
        **obj(a={"$ref": "#/$defs/A"}),
        "$defs": {"A": {"anyOf": [{"type": "null"}, {"not": {"$ref": "#/$defs/A"}}]}},
    },
    {**obj(a={}), "allOf": [{"$ref": "#"}]},
]


@pytest.mark.parametrize("parameters", LOOPS)
def test_reference_loops_that_never_reach_a_value_are_refused(parameters: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError, match="loop back without ever reaching a value"):
        define(parameters)


TREE = {
    "type": "object",
    "properties": {"root": {"$ref": "#/$defs/Node"}},
    "required": ["root"],
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
    },
}
LINKED = obj(
    head={
        "type": "object",
        "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/properties/head"}},
    }
)
MUTUAL = {
    **obj(a={"$ref": "#/$defs/A"}),
    "$defs": {"A": obj(b={"$ref": "#/$defs/B"}), "B": obj(a={"$ref": "#/$defs/A"}, n={"type": "integer"})},
}


def _tree(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"name": "leaf"}
    for i in range(depth):
        node = {"name": f"n{i}", "children": [node]}
    return node


@pytest.mark.parametrize("parameters", [TREE, LINKED, MUTUAL])
def test_recursion_through_a_value_is_supported_everywhere(parameters: dict[str, Any]) -> None:
    tool = define(parameters)
    for name, validate in VALIDATORS.items():
        for strict in (False, True):
            rendered = get_dialect(name, strict=strict).render(tool.name, "d", tool.parameters)
            assert validate(rendered.payload) == [], (name, strict)


def test_recursive_arguments_validate_to_any_depth_the_parser_allows() -> None:
    validator = SchemaValidator(define(TREE).parameters)
    assert validator.validate({"root": _tree(60)})[1] == []
    deep_bad = _tree(30)
    deep_bad["children"][0]["children"][0]["surprise"] = 1
    errors = validator.validate({"root": deep_bad})[1]
    assert errors == ["unknown field 'root.children[0].children[0].surprise' (known fields: children, name)"]
    ran = one(Executor(loadout(define(TREE))), "t", {"root": _tree(20)})
    assert ran.error is None and ran.content == "ran"


def test_schemas_nested_too_deeply_are_refused_not_crashed_on() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(70):
        deep = {"type": "array", "items": deep}
    with pytest.raises(ToolDefinitionError, match="nested more than 64 levels"):
        define(obj(a=deep))
    hostile: dict[str, Any] = {}
    for _ in range(5000):
        hostile = {"items": hostile}
    with pytest.raises(ToolDefinitionError, match="nested"):
        define(obj(a=hostile))


def test_draft07_forms_are_read_as_2020_12() -> None:
    tool = define({**obj(a={}, b={}, c={}), "dependencies": {"a": ["b"], "c": {"required": ["a"]}}})
    assert tool.parameters["dependentRequired"] == {"a": ["b"]}
    assert tool.parameters["dependentSchemas"] == {"c": {"required": ["a"]}}
    validator = SchemaValidator(tool.parameters)
    assert validator.validate({"a": 1})[1] == ["arguments: 'a' is given, so 'b' must be given too"]
    assert validator.validate({"c": 1})[1] == ["missing required field 'a'"]


def test_anchors_and_pointer_escapes_resolve() -> None:
    tool = define(
        {
            **obj(a={"$ref": "#point"}, b={"$ref": "#/$defs/a~1b"}),
            "$defs": {"P": {"$anchor": "point", "type": "integer"}, "a/b": {"type": "string"}},
        }
    )
    validator = SchemaValidator(tool.parameters)
    assert validator.validate({"a": 1, "b": "x"})[1] == []
    assert validator.validate({"a": "x", "b": 1}) == (
        {"a": "x", "b": "1"},
        ["field 'a': expected integer, got string 'x'"],
    )
    assert not validator.is_valid({"a": 1, "b": 1})


# -- soundness against the real meta-schema --------------------------------------------------------

KEYWORDS = st.sampled_from(
    ["type", "minimum", "maxLength", "pattern", "enum", "required", "items", "properties", "anyOf",
     "oneOf", "not", "$ref", "multipleOf", "minItems", "uniqueItems", "description", "const",
     "additionalProperties", "if", "then", "dependentRequired", "contains", "format", "$defs"]
)  # fmt: skip
ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=4),
    st.sampled_from(["string", "integer", "object", "strng", "#/$defs/A", "#/$defs/Z", "#", "^a", "("]),
    st.lists(st.sampled_from(["a", "b", "string", 1]), max_size=3),
)  # fmt: skip
SCHEMAISH = st.recursive(
    st.booleans() | st.dictionaries(KEYWORDS, ODD_VALUES, max_size=3),
    lambda inner: (
        st.dictionaries(KEYWORDS, inner | ODD_VALUES | st.lists(inner, max_size=2), max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2).map(lambda p: {"properties": p})
    ),
    max_leaves=12,
)


@st.composite
def schemaish_roots(draw: st.DrawFn) -> dict[str, Any]:
    body = draw(SCHEMAISH)
    body = body if isinstance(body, dict) else {}
    return {**body, "type": "object", "$defs": {"A": draw(SCHEMAISH)}}


@pytest.fixture(autouse=True)
def _quiet_normaliser() -> Any:
    logging.getLogger("tooldeck.schemas").setLevel(logging.ERROR)
    yield
    logging.getLogger("tooldeck.schemas").setLevel(logging.NOTSET)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemaish_roots())
def test_every_accepted_schema_is_valid_for_the_meta_schema_and_checkable(parameters: dict[str, Any]) -> None:
    try:
        tool = define(parameters)
    except ToolDefinitionError:
        return
    Draft202012Validator.check_schema(tool.parameters)
    validator = SchemaValidator(tool.parameters)
    for value in ({}, {"a": 1}, {"a": "x", "b": [1, {}]}, {"b": None}):
        validator.validate(value)  # never raises: every keyword it holds is enforceable
