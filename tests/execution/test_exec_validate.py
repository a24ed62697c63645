"""X2: validation against the schema the model saw, with lenient coercion and field-level errors."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tooldeck import Tool, tool
from tooldeck._core.execution.calls import validate
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ValidatedCall
from tooldeck._core.schemas.validate import check_arguments, compile_schema
from tooldeck.errors import CallRejected

from .helpers import loadout, one

SCHEMA = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 0},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "name": {"type": "string", "maxLength": 5},
        "tags": {"type": "array", "items": {"type": "string"}},
        "mode": {"enum": ["fast", "slow"]},
        "level": {"enum": [1, 2, 3]},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "nested": {
            "type": "object",
            "properties": {"depth": {"type": "integer"}},
            "required": ["depth"],
            "additionalProperties": False,
        },
    },
    "required": ["count"],
    "additionalProperties": False,
}
CHECK = compile_schema(SCHEMA)


def ok(args: dict[str, Any]) -> dict[str, Any]:
    out, errors = check_arguments(CHECK, args)
    assert errors == []
    return out


def errors_of(args: dict[str, Any]) -> list[str]:
    return check_arguments(CHECK, args)[1]


def test_lenient_coercion_of_scalars() -> None:
    out = ok({"count": "5", "ratio": "0.5", "flag": "true", "name": 42, "level": "2", "maybe": "7"})
    assert out == {"count": 5, "ratio": 0.5, "flag": True, "name": "42", "level": 2, "maybe": 7}
    assert type(out["count"]) is int and type(out["flag"]) is bool


def test_json_encoded_arrays_and_objects_are_decoded() -> None:
    out = ok({"count": 1, "tags": '["a", "b"]', "nested": '{"depth": "3"}'})
    assert out == {"count": 1, "tags": ["a", "b"], "nested": {"depth": 3}}


def test_coercion_does_not_mutate_the_input() -> None:
    args = {"count": "5", "tags": ["x", 1]}
    ok(args)
    assert args == {"count": "5", "tags": ["x", 1]}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "missing required field 'count' (integer)"),
        ({"count": "five"}, "field 'count': expected integer, got string 'five'"),
        ({"count": 1, "flag": "yes"}, "field 'flag': expected boolean, got string 'yes'"),
        ({"count": -1}, "field 'count': must be >= 0"),
        ({"count": 1, "name": "toolong"}, "field 'name': must be at most 5 characters long"),
        ({"count": 1, "mode": "medium"}, 'field \'mode\': expected one of "fast", "slow"'),
        ({"count": 1, "tags": ["a", {"b": 1}]}, "field 'tags[1]': expected string, got object"),
        ({"count": 1, "nested": {}}, "missing required field 'nested.depth' (integer)"),
        ({"count": 1, "nested": {"depth": 1, "x": 2}}, "unknown field 'nested.x' (known fields: depth)"),
        ({"count": 1, "colour": "red"}, "unknown field 'colour'"),
        ({"count": 1.5}, "field 'count': expected integer, got number 1.5"),
        ({"count": True}, "field 'count': expected integer, got boolean true"),
    ],
)
def test_errors_name_the_field_and_the_expected_type(args: dict[str, Any], expected: str) -> None:
    errors = errors_of(args)
    assert any(expected in e for e in errors), errors


def test_every_failing_field_is_reported() -> None:
    errors = errors_of({"count": "x", "flag": "maybe", "ratio": "fast"})
    assert len(errors) == 3


@settings(deadline=None)
@given(st.integers())
def test_integers_sent_as_strings_coerce_back(n: int) -> None:
    assert ok({"count": str(abs(n))})["count"] == abs(n)


@settings(deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_sent_as_strings_coerce_back(x: float) -> None:
    assert ok({"count": 0, "ratio": repr(x)})["ratio"] == x


@settings(deadline=None)
@given(st.booleans(), st.sampled_from([str.lower, str.upper, str.title]))
def test_booleans_sent_as_strings_coerce_back(b: bool, case: Any) -> None:
    assert ok({"count": 0, "flag": case(str(b))})["flag"] is b


@settings(deadline=None)
@given(st.text(max_size=10).filter(lambda s: s.strip().lower() not in ("true", "false")))
def test_other_strings_are_not_booleans(s: str) -> None:
    assert errors_of({"count": 0, "flag": s})


class Point(BaseModel):
    x: int
    y: int


def test_refs_into_defs_are_followed() -> None:
    @tool
    def plot(points: list[Point], style: Literal["dot", "line"] = "dot") -> str:
        """Plot."""
        return f"{len(points)} {style}"

    vc = validate(ToolCall("1", "plot"), plot, {"points": [{"x": "1", "y": 2}]})
    assert vc.arguments == {"points": [{"x": 1, "y": 2}], "style": "dot"}  # as the handler gets them
    with pytest.raises(CallRejected) as info:
        validate(ToolCall("1", "plot"), plot, {"points": [{"x": 1}]})
    assert "points[0].y" in info.value.error.message
    assert (
        one(Executor(loadout(plot)), "plot", {"points": [{"x": "1", "y": "2"}], "style": "line"}).content
        == "1 line"
    )


def test_validated_call_is_a_record_before_anything_runs() -> None:
    ran: list[int] = []
    t = Tool(name="t", description="d", parameters=SCHEMA, handler=lambda a: ran.append(1))
    vc = validate(ToolCall("c1", "t", '{"count": "3"}'), t, {"count": "3"})
    assert isinstance(vc, ValidatedCall)
    assert (vc.id, vc.name, vc.arguments) == ("c1", "t", {"count": 3})
    assert ran == []


def test_invalid_arguments_reach_the_model_as_an_envelope_and_the_tool_does_not_run() -> None:
    ran: list[int] = []
    t = Tool(name="t", description="d", parameters=SCHEMA, handler=lambda a: ran.append(1))
    result = one(Executor(loadout(t)), "t", {"count": "many"})
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert result.error.retryable
    assert "field 'count': expected integer" in result.error.message
    assert ran == []


def test_dict_handlers_get_the_coerced_arguments() -> None:
    seen: list[dict[str, Any]] = []
    t = Tool(name="t", description="d", parameters=SCHEMA, handler=lambda a: seen.append(a) or "done")
    assert one(Executor(loadout(t)), "t", '{"count": "3", "flag": "false"}').content == "done"
    assert seen == [{"count": 3, "flag": False}]


def test_pydantic_model_stricter_than_schema_still_reports_the_field() -> None:
    from pydantic import field_validator

    class Args(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def even(cls, v: int) -> int:
            if v % 2:
                raise ValueError("must be even")
            return v

    t = Tool(
        name="even",
        description="d",
        parameters=Args.model_json_schema(),
        handler=lambda **kw: kw["n"],
        call_style="kwargs",
        arg_model=Args,
    )
    result = one(Executor(loadout(t)), "even", {"n": 3})
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert "field 'n'" in result.error.message and "must be even" in result.error.message
    assert one(Executor(loadout(t)), "even", {"n": "4"}).content == "4"


def test_null_for_an_optional_field_means_not_given() -> None:
    # OpenAI strict mode shows optional fields as nullable; models then send null for them.
    assert ok({"count": 1, "name": None, "tags": None}) == {"count": 1}
    assert ok({"count": 1, "maybe": None}) == {"count": 1, "maybe": None}  # null is allowed there
    assert any("field 'count'" in e for e in errors_of({"count": None}))  # required stays required

    @tool
    def page(path: str, offset: int = 1) -> str:
        """Read."""
        return f"{path}@{offset}"

    assert one(Executor(loadout(page)), "page", {"path": "a", "offset": None}).content == "a@1"


valid_args = st.fixed_dictionaries(
    {"count": st.integers(min_value=0)},
    optional={
        "ratio": st.floats(allow_nan=False, allow_infinity=False) | st.integers(),
        "flag": st.booleans(),
        "name": st.text(max_size=5),
        "tags": st.lists(st.text(max_size=5), max_size=3),
        "mode": st.sampled_from(["fast", "slow"]),
        "level": st.sampled_from([1, 2, 3]),
        "maybe": st.none() | st.integers(),
        "nested": st.fixed_dictionaries({"depth": st.integers()}),
    },
)


@settings(deadline=None)
@given(valid_args)
def test_valid_arguments_pass_unchanged(args: dict[str, Any]) -> None:
    out = ok(args)
    assert out == args
    assert all(type(out[k]) is type(args[k]) for k in args)
