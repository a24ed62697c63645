"""Arguments no tool should get are refused as `invalid_arguments` with a clean message, and the
tool never runs; odd but valid arguments (escaped control characters) pass through unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import Tool, tool
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolResult

from .helpers import loadout, one

RAN: list[Any] = []


@tool
def wait(delay: float, note: str = "") -> str:
    """Wait a little."""
    RAN.append(delay)
    return f"waited {delay}"


@tool
def repeat(times: int) -> str:
    """Repeat."""
    RAN.append(times)
    return "x" * times


def _echo(args: dict[str, Any]) -> str:
    RAN.append(args)
    return json.dumps(args, ensure_ascii=True)


echo = Tool(name="echo", description="Echo.", parameters={"type": "object"}, handler=_echo)
count = Tool(
    name="count",
    description="Count.",
    parameters={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    handler=_echo,
)
EXECUTOR = Executor(loadout(wait, repeat, echo, count))


def refused(name: str, arguments: Any) -> str:
    RAN.clear()
    result = one(EXECUTOR, name, arguments)
    assert result.error is not None, result.content
    assert result.error.type == "invalid_arguments"
    assert RAN == []  # the tool did not run
    assert "Traceback" not in result.error.message
    return result.error.message


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_non_finite_numbers_are_refused(literal: str) -> None:
    message = refused("wait", f'{{"delay": {literal}}}')
    assert "not a JSON number" in message or "not valid JSON" in message
    assert "delay" in message


def test_non_finite_numbers_in_decoded_arguments_are_refused() -> None:
    assert "field 'delay' is nan" in refused("wait", {"delay": float("nan")})
    assert "field 'note.x[1]' is inf" in refused("echo", {"note": {"x": [1, float("inf")]}})


def test_booleans_are_not_integers() -> None:
    assert "field 'times': expected integer, got boolean true" in refused("repeat", '{"times": true}')
    assert "field 'n': expected integer, got boolean false" in refused("count", {"n": False})


def test_a_missing_null_is_described_once() -> None:
    message = refused("count", {"n": None})
    assert "expected integer, got null" in message and "null null" not in message


def test_deep_nesting_is_refused_at_any_depth() -> None:
    for depth in (65, 300, 5000):
        text = '{"v": ' + "[" * depth + "]" * depth + "}"
        assert "nested" in refused("echo", text)
    value: Any = 1
    for _ in range(100):
        value = [value]
    assert "nested more than 64 levels" in refused("echo", {"v": value})


def test_huge_arguments_are_refused_before_parsing() -> None:
    text = json.dumps({"v": "x" * (8 * 1024 * 1024)})
    assert "over the limit" in refused("echo", text)
    assert "more digits than any tool takes" in refused("echo", '{"v": ' + "9" * 5000 + "}")
    assert "integer of more than" in refused("echo", '{"v": ' + "9" * 3000 + "}")


def test_unpaired_surrogates_are_refused() -> None:
    assert "not valid Unicode" in refused("echo", '{"v": "a\\ud800b"}')
    assert "not valid Unicode" in refused("echo", '{"v": "a\ud800b"}')  # raw, not escaped, in the text
    assert "not valid Unicode" in refused("echo", {"v": ["ok", "\udfff"]})
    assert "the key" in refused("echo", {"\ud800": 1})


def test_escaped_control_characters_pass_through_unchanged() -> None:
    RAN.clear()
    result = one(EXECUTOR, "echo", '{"v": "a\\u0000b\\u001fc\\n"}')
    assert result.error is None
    assert RAN == [{"v": "a\x00b\x1fc\n"}]


def test_raw_control_characters_are_invalid_json() -> None:
    message = refused("echo", '{"v": "a\x01b"}')
    assert "not valid JSON" in message and "control character" in message


JSONISH = st.recursive(
    st.sampled_from(
        ["1", "-0", "1e999", "NaN", "true", "null", '"\\ud800"', '"\\u0000"', '"x"', "1.5", "[]", "{}"]
    ),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")
        | st.lists(inner, max_size=3).map(
            lambda xs: "{" + ",".join(f'"k{i}": {x}' for i, x in enumerate(xs)) + "}"
        )
        | st.tuples(inner, st.integers(1, 120)).map(lambda t: "[" * t[1] + t[0] + "]" * t[1])
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(JSONISH, st.sampled_from(["echo", "wait", "repeat", "count"]))
def test_any_argument_text_gives_a_result_or_a_clean_refusal(body: str, name: str) -> None:
    key = {"echo": "v", "wait": "delay", "repeat": "times", "count": "n"}[name]
    result: ToolResult = one(EXECUTOR, name, f'{{"{key}": {body}}}')
    if result.error is not None:
        assert result.error.type in ("invalid_arguments", "tool_error"), result.error
        assert "Traceback" not in result.error.message
