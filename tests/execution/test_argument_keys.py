"""Arguments JSON that repeats a key is refused (JSON parsers disagree on which value wins), and
every refusal of an argument value carries the same "invalid arguments for <tool>:" prefix."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck import tool
from tooldeck._core.execution.executor import Executor

from .helpers import loadout, one

RAN: list[Any] = []


@tool
def f(n: float, s: str = "", d: dict[str, int] | None = None) -> str:
    """Record the call."""
    RAN.append((n, s, d))
    return "ran"


EXECUTOR = Executor(loadout(f))


def refused(arguments: str) -> str:
    RAN.clear()
    result = one(EXECUTOR, "f", arguments)
    assert result.error is not None and result.error.type == "invalid_arguments", result.content
    assert RAN == []
    return result.error.message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"n": 1, "n": 2}', "n"),
        ('{"n": 1, "d": {"a": 1, "a" : 2}}', "a"),
        ('{"s": "x\\": y", "n": 1, "n": 1}', "n"),
    ],
)
def test_a_repeated_key_is_refused_naming_it(text: str, key: str) -> None:
    message = refused(text)
    assert message.startswith("invalid arguments for f: ")
    assert f"the key {key!r} appears twice" in message


def test_a_colon_inside_a_string_is_not_taken_for_a_repeated_key() -> None:
    result = one(EXECUTOR, "f", '{"n": 1, "s": "a\\": b\\": c"}')
    assert result.error is None and result.content == "ran"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"n": NaN}', "field 'n' is nan"),
        ('{"n": Infinity}', "field 'n' is inf"),
        ('{"n": 1, "s": "\\ud800"}', "field 's' is not valid Unicode"),
    ],
)
def test_value_refusals_carry_the_tool_prefix(arguments: str, problem: str) -> None:
    message = refused(arguments)
    assert message.startswith(f"invalid arguments for f: {problem}")
