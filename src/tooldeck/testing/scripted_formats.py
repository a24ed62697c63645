"""The three wire formats the scripted server speaks: a `Turn` rendered as a Chat Completions,
Responses or Anthropic Messages reply, whole or as the stream of server-sent events."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Turn:
    """One scripted reply. `calls` are (name, arguments) pairs; a dict is sent as JSON text."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    status: int = 200
    error: str = ""
    error_code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    # Streaming only: drop the connection after this many events (a network cut mid-stream).
    cut_after: int | None = None


class ScriptedServer(Protocol):
    """What a reply reads of the server that sends it (`scripted_server.ScriptedServer`)."""

    @property
    def model(self) -> str: ...
    def next_id(self, prefix: str) -> str: ...


def _pieces(text: str, n: int = 3) -> list[str]:
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _args_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _usage_in(body: dict[str, Any]) -> int:
    return len(json.dumps(body)) // 4


def chat(
    server: ScriptedServer, turn: Turn, body: dict[str, Any], *, stream: bool
) -> Iterator[tuple[Any, Any]]:
    cid = server.next_id("chatcmpl")
    calls = [(server.next_id("call"), name, _args_text(args)) for name, args in turn.calls]
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": _usage_in(body), "completion_tokens": len(turn.text) // 4 + 1}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    base = {"id": cid, "created": 0, "model": server.model}
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if calls:
            message["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
            ]
        choice = {"index": 0, "message": message, "finish_reason": finish}
        yield None, {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
        return

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {**base, "object": "chat.completion.chunk", "choices": [choice]}

    yield None, chunk({"role": "assistant", "content": ""})
    for piece in _pieces(turn.text) if turn.text else []:
        yield None, chunk({"content": piece})
    for index, (call_id, name, args) in enumerate(calls):
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        yield None, chunk({"tool_calls": [head]})
        for piece in _pieces(args, 2):
            yield None, chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield None, chunk({}, finish)
    if (body.get("stream_options") or {}).get("include_usage"):
        yield None, {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
    yield None, "[DONE]"


def responses(
    server: ScriptedServer, turn: Turn, body: dict[str, Any], *, stream: bool
) -> Iterator[tuple[Any, Any]]:
    output: list[dict[str, Any]] = []
    msg_id = server.next_id("msg")
    if turn.text:
        content = [{"type": "output_text", "text": turn.text, "annotations": []}]
        output.append(
            {"type": "message", "id": msg_id, "status": "completed", "role": "assistant", "content": content}
        )
    for name, args in turn.calls:
        output.append(
            {
                "type": "function_call",
                "id": server.next_id("fc"),
                "call_id": server.next_id("call"),
                "name": name,
                "arguments": _args_text(args),
                "status": "completed",
            }
        )
    usage = {
        "input_tokens": _usage_in(body),
        "output_tokens": len(turn.text) // 4 + 1,
        "total_tokens": 0,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    response = {
        "id": server.next_id("resp"),
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": server.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": body.get("tools") or [],
        "usage": usage,
    }
    if not stream:
        yield None, response
        return
    seq = itertools.count()
    yield (
        "response.created",
        {
            "type": "response.created",
            "sequence_number": next(seq),
            "response": {**response, "status": "in_progress", "output": []},
        },
    )
    for piece in _pieces(turn.text) if turn.text else []:
        yield (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "item_id": msg_id,
                "output_index": 0,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
                "sequence_number": next(seq),
            },
        )
    yield (
        "response.completed",
        {"type": "response.completed", "sequence_number": next(seq), "response": response},
    )


def anthropic(
    server: ScriptedServer, turn: Turn, body: dict[str, Any], *, stream: bool
) -> Iterator[tuple[Any, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    for name, args in turn.calls:
        value = json.loads(args) if isinstance(args, str) and _is_json(args) else args
        blocks.append({"type": "tool_use", "id": server.next_id("toolu"), "name": name, "input": value})
    stop = "tool_use" if turn.calls else "end_turn"
    usage = {"input_tokens": _usage_in(body), "output_tokens": len(turn.text) // 4 + 1}
    message = {
        "id": server.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": server.model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not stream:
        yield None, message
        return
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            for piece in _pieces(block["text"]):
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
        else:
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": head},
            )
            raw = block["input"] if isinstance(block["input"], str) else json.dumps(block["input"])
            for piece in _pieces(raw, 2):
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
