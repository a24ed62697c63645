"""One rule turns a handler's return value into text (see `tooldeck._core.execution.result_text`);
a value with no text form is reported as such, never blamed on the tool's code."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Config, Deck, tool
from tooldeck._core.execution.result_text import to_text

VALUES: dict[str, Any] = {}


@tool(toolset="x")
def ret(kind: str) -> object:
    """Return a prepared value."""
    return VALUES[kind]


@pytest.fixture
def deck(tmp_path: Path) -> Deck:
    return Deck(Config(platform_toolsets={"cli": ["x"]}, home=str(tmp_path / "home")), tools=[ret])


def returned(deck: Deck, value: Any) -> str:
    VALUES["v"] = value
    result = deck.call_sync("ret", {"kind": "v"})
    assert result.error is None, result.content
    return result.content


def failed(deck: Deck, value: Any) -> str:
    VALUES["v"] = value
    result = deck.call_sync("ret", {"kind": "v"})
    assert result.error is not None and result.error.type == "tool_error"
    assert result.error.message.startswith(
        "tool 'ret' ran, but returned a value that cannot be turned into text"
    )
    return result.error.message


def test_json_like_values_become_json(deck: Deck) -> None:
    assert json.loads(returned(deck, {1: "a", (1, 2): "b", "k": {3, 1, 2}})) == {
        "1": "a",
        "(1, 2)": "b",
        "k": [1, 2, 3],
    }
    assert returned(deck, frozenset({"b", "a"})) == '["a", "b"]'
    assert returned(deck, (1, 2)) == "[1, 2]"
    assert json.loads(returned(deck, {"mixed": {1, "a"}}))["mixed"] in ([1, "a"], ["a", 1])
    assert json.loads(returned(deck, [float("nan"), {float("inf"): 1}])) == [None, {"Infinity": 1}]


def test_bytes_are_text_when_utf8_else_base64_with_a_note(deck: Deck) -> None:
    assert returned(deck, "héllo".encode()) == "héllo"
    assert returned(deck, bytearray(b"xy")) == "xy"
    text = returned(deck, b"\xff\x00abc")
    note, encoded = text.split("\n")
    assert note == "[binary result: 5 bytes, not UTF-8 text; base64 follows]"
    assert base64.b64decode(encoded) == b"\xff\x00abc"
    inner = json.loads(returned(deck, {"ok": b"hi", "bin": b"\xff"}))
    assert inner == {"ok": "hi", "bin": base64.b64encode(b"\xff").decode()}


def test_a_recursive_value_is_an_error_naming_the_problem(deck: Deck) -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    assert "it contains itself (a list holding itself)" in failed(deck, loop)
    mapping: dict[str, Any] = {}
    mapping["self"] = {"again": mapping}
    assert "(a dict holding itself)" in failed(deck, mapping)
    shared = [1]
    assert returned(deck, [shared, shared]) == "[[1], [1]]"  # repeated, not recursive


def test_unproduced_iterators_and_huge_ints_are_not_blamed_on_the_handler(deck: Deck) -> None:
    message = failed(deck, (i for i in range(3)))
    assert "(generator)" in message and "return a list" in message
    assert "failed:" not in message
    assert "Exceeds the limit" in failed(deck, 10**5000)


def test_a_value_whose_str_raises_is_reported_as_such(deck: Deck) -> None:
    class Bad:
        def __str__(self) -> str:
            raise RuntimeError("str boom")

    assert failed(deck, [Bad()]).endswith("(list): RuntimeError: str boom")


def test_to_text_keeps_strings_and_ints() -> None:
    assert to_text("a\x00b") == "a\x00b"
    assert to_text(12) == "12"
    assert to_text(True) == "true"
    assert to_text(None) == "null"
