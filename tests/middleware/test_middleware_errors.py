"""Middleware that misbehaves costs its call only, and a config naming something that is not a
middleware is refused with the key path; TruncateResults is an ordinary middleware too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tooldeck import Config, Deck, ToolCall, ToolCallRequest, ToolResult, TruncateResults, parse_config, tool
from tooldeck._core.execution.middleware import CallNext
from tooldeck.errors import ConfigError


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


class Raises:
    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        if call.arguments.get("text") == "boom":
            raise RuntimeError("middleware bug")
        return await call_next(call)


class WrongAnswer:
    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> Any:
        return ToolResult(call_id="someone-else", name=call.name, content="not yours")


class BadArguments:
    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await call_next(call.replace(arguments={"words": "x"}))


def test_a_raising_middleware_fails_its_call_only() -> None:
    deck = Deck(Config(), tools=[echo], middleware=[Raises()])
    ok, bad = deck.call_batch_sync(
        [ToolCall("a", "echo", {"text": "fine"}), ToolCall("b", "echo", {"text": "boom"})]
    )
    assert ok.content == "fine"
    assert bad.error is not None and bad.error.type == "tool_error"
    assert (
        "a middleware failed on the call of 'echo'" in bad.error.message
        and "middleware bug" in bad.error.message
    )


def test_an_answer_for_another_call_is_refused() -> None:
    result = Deck(Config(), tools=[echo], middleware=[WrongAnswer()]).call_sync("echo", {"text": "x"})
    assert result.error is not None and "not its ToolResult" in result.error.message
    assert result.call_id == "call_1"


def test_rewritten_arguments_are_validated_again() -> None:
    result = Deck(Config(), tools=[echo], middleware=[BadArguments()]).call_sync("echo", {"text": "x"})
    assert result.error is not None and result.error.type == "invalid_arguments", result.content
    assert "text" in result.error.message


def test_a_given_object_without_an_async_on_call_is_refused() -> None:
    with pytest.raises(TypeError, match=r"middleware\[0\] \(object\) is not a middleware"):
        Deck(Config(), tools=[echo], middleware=[object()])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("use", "message"),
    [
        ("nomodule_zz:Thing", "cannot import module 'nomodule_zz'"),
        ("json", "must be 'package.module:attribute'"),
        ("json:dumps", "is not a middleware"),
        ("json:nothing_here", "has no attribute"),
    ],
)
def test_config_middleware_that_is_not_one_names_the_key(use: str, message: str, tmp_path: Path) -> None:
    config = parse_config({"middleware": [{"use": use}]}, base_dir=str(tmp_path))
    with pytest.raises(ConfigError, match="middleware") as raised:
        Deck(config, tools=[echo])
    assert "middleware[0].use" in str(raised.value) and message in str(raised.value), str(raised.value)


def test_truncate_results_as_a_users_middleware_cuts_to_its_own_limit() -> None:
    long = "\n".join(f"line {i}" for i in range(200))
    deck = Deck(Config(), tools=[echo], middleware=[TruncateResults(100, None)])
    result = deck.call_sync("echo", {"text": long})
    assert result.ok and "[result truncated: showing characters 0-" in result.content
    assert "the rest was dropped" in result.content and result.content.endswith("line 199")
    assert len(result.content) < 400
