"""Rendered tools go through the official SDKs unchanged: the `openai` and `anthropic` clients
send them to a scripted server on loopback, which records exactly what arrived."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall

from tooldeck import Tool
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.dialects import render_loadout
from tooldeck.testing.scripted_server import ScriptedServer, Turn

from .test_dialect_snapshots import CASES


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def _loadout() -> Loadout:
    tools = tuple(
        Tool(name=f"t_{case}", description=desc, parameters=schema)
        for case, (desc, schema) in sorted(CASES.items())
    )
    return Loadout(
        platform="test",
        exposed=tools,
        deferred=(),
        hidden=(),
        descriptions={t.name: str(t.description) for t in tools},
        reasons={},
    )


@pytest.mark.parametrize("strict", [False, True])
def test_openai_chat_sdk_sends_the_rendered_tools(server: ScriptedServer, strict: bool) -> None:
    tools: Any = render_loadout(_loadout(), "openai", strict=strict)
    server.add(Turn(calls=[("t_no_arguments", {})]))
    client = openai.OpenAI(base_url=server.openai_url, api_key="test", max_retries=0)
    reply = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools
    )
    assert server.requests[0].body["tools"] == tools
    calls = reply.choices[0].message.tool_calls
    assert calls is not None and isinstance(calls[0], ChatCompletionMessageFunctionToolCall)
    assert calls[0].function.name == "t_no_arguments"
    if strict:
        assert any(t["function"].get("strict") for t in tools)


def test_openai_responses_sdk_sends_the_rendered_tools(server: ScriptedServer) -> None:
    tools: Any = render_loadout(_loadout(), "responses", strict=True)
    server.add(Turn(text="ok"))
    client = openai.OpenAI(base_url=server.openai_url, api_key="test", max_retries=0)
    client.responses.create(model="m", input="hi", tools=tools)
    sent = server.requests[0].body["tools"]
    assert sent == tools
    assert all(isinstance(t["strict"], bool) for t in sent)


def test_anthropic_sdk_sends_the_rendered_tools(server: ScriptedServer) -> None:
    tools: Any = render_loadout(_loadout(), "anthropic")
    server.add(Turn(calls=[("t_constraints", {"url": "https://example.org"})]))
    client = anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0)
    reply = client.messages.create(
        model="m", max_tokens=100, messages=[{"role": "user", "content": "hi"}], tools=tools
    )
    assert server.requests[0].body["tools"] == tools
    used = [b for b in reply.content if b.type == "tool_use"]
    assert used and used[0].name == "t_constraints" and used[0].input == {"url": "https://example.org"}
