"""The three wire formats the scripted server speaks: a `Turn` rendered as a Chat Completions,
Responses or Anthropic Messages reply, whole or as the stream of server-sent events.

A turn's `reasoning` goes out the way each provider sends it (DeepSeek-style
`reasoning_content`; a Responses `reasoning` item, with `encrypted_content` when the request's
`include` asks for it; an Anthropic `thinking` block with its signature, and a
`redacted_thinking` block with `redacted`); `thought_signatures` puts Gemini's signature on the
first tool call of a Chat Completions reply. What was issued is remembered (`server.issue`) so
later requests can be held to giving it back (`scripted_reasoning`)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from tooldeck.testing import scripted_search
from tooldeck.testing.scripted_cache import PromptCache


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
    # The model's reasoning before its answer or calls (sent as each provider sends it).
    reasoning: str = ""
    # Anthropic: a redacted_thinking block after the thinking one.
    redacted: bool = False
    # Chat Completions: Gemini's thought signature on the first tool call.
    thought_signatures: bool = False
    # An error's body exactly as given (default: the format's own error shape around `error`).
    error_body: Any = None


class ScriptedServer(Protocol):
    """What a reply reads of the server that sends it (`scripted_server.ScriptedServer`)."""

    @property
    def model(self) -> str: ...
    @property
    def cache(self) -> PromptCache: ...
    def next_id(self, prefix: str) -> str: ...
    def issue(self, key: tuple[str, str], value: Any) -> None: ...


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
    thought = len(turn.reasoning) // 4
    bill = server.cache.openai("chat", body)
    usage: dict[str, Any] = {
        "prompt_tokens": max(_usage_in(body), sum(bill)),
        "completion_tokens": len(turn.text) // 4 + 1 + thought,
        "prompt_tokens_details": bill._asdict(),
    }
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    if thought:
        usage["completion_tokens_details"] = {"reasoning_tokens": thought}
    base = {"id": cid, "created": 0, "model": server.model}
    extras = _chat_extras(server, turn, [i for i, _, _ in calls])
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.reasoning:
            message["reasoning_content"] = turn.reasoning
        if calls:
            message["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}, **extras.get(i, {})}
                for i, n, a in calls
            ]
        choice = {"index": 0, "message": message, "finish_reason": finish}
        yield None, {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
        return

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {**base, "object": "chat.completion.chunk", "choices": [choice]}

    yield None, chunk({"role": "assistant", "content": ""})
    for piece in _pieces(turn.reasoning) if turn.reasoning else []:
        yield None, chunk({"reasoning_content": piece})
    for piece in _pieces(turn.text) if turn.text else []:
        yield None, chunk({"content": piece})
    for index, (call_id, name, args) in enumerate(calls):
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
            **extras.get(call_id, {}),
        }
        yield None, chunk({"tool_calls": [head]})
        for piece in _pieces(args, 2):
            yield None, chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield None, chunk({}, finish)
    if (body.get("stream_options") or {}).get("include_usage"):
        yield None, {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
    yield None, "[DONE]"


def _chat_extras(server: ScriptedServer, turn: Turn, call_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Gemini's thought signature for the first call; the reasoning the calls came with."""
    if not call_ids:
        return {}
    if turn.reasoning:
        server.issue(("chat_reasoning", call_ids[0]), turn.reasoning)
    if not turn.thought_signatures:
        return {}
    signature = server.next_id("sig")
    server.issue(("thought_signature", call_ids[0]), signature)
    return {call_ids[0]: {"extra_content": {"google": {"thought_signature": signature}}}}


def responses(
    server: ScriptedServer, turn: Turn, body: dict[str, Any], *, stream: bool
) -> Iterator[tuple[Any, Any]]:
    output: list[dict[str, Any]] = []
    msg_id = server.next_id("msg")
    reasoning_id = _reasoning_item(server, turn, body, output)
    if turn.text:
        content = [{"type": "output_text", "text": turn.text, "annotations": []}]
        output.append(
            {"type": "message", "id": msg_id, "status": "completed", "role": "assistant", "content": content}
        )
    for name, args in turn.calls:
        searched = scripted_search.responses_items(server, name, args, body)
        if searched is not None:
            output.extend(searched)
            continue
        fc_id = server.next_id("fc")
        if reasoning_id:
            server.issue(("fc", fc_id), reasoning_id)
        item = {
            "type": "function_call",
            "id": fc_id,
            "call_id": server.next_id("call"),
            "name": name,
            "arguments": _args_text(args),
            "status": "completed",
        }
        space = scripted_search.namespace_of(name, body)
        output.append({**item, "namespace": space} if space else item)
    bill = server.cache.openai("responses", body)
    usage = {
        "input_tokens": max(_usage_in(body), sum(bill)),
        "output_tokens": len(turn.text) // 4 + 1,
        "total_tokens": 0,
        "input_tokens_details": bill._asdict(),
        "output_tokens_details": {"reasoning_tokens": len(turn.reasoning) // 4},
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
    for piece in _pieces(turn.reasoning) if reasoning_id else []:
        yield (
            "response.reasoning_summary_text.delta",
            {
                "type": "response.reasoning_summary_text.delta",
                "item_id": reasoning_id,
                "output_index": 0,
                "summary_index": 0,
                "delta": piece,
                "sequence_number": next(seq),
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


def _reasoning_item(
    server: ScriptedServer, turn: Turn, body: dict[str, Any], output: list[dict[str, Any]]
) -> str:
    """A Responses reasoning item (its encrypted content only when `include` asks for it)."""
    if not turn.reasoning:
        return ""
    item_id = server.next_id("rs")
    encrypted = None
    if "reasoning.encrypted_content" in (body.get("include") or []):
        encrypted = "gAAAA" + server.next_id("enc")
        server.issue(("rs", item_id), encrypted)
    else:
        server.issue(("rs", item_id), None)
    summary = [{"type": "summary_text", "text": turn.reasoning}]
    output.append({"type": "reasoning", "id": item_id, "summary": summary, "encrypted_content": encrypted})
    return item_id


def anthropic(
    server: ScriptedServer, turn: Turn, body: dict[str, Any], *, stream: bool
) -> Iterator[tuple[Any, Any]]:
    blocks = _thinking_blocks(server, turn)
    thought = bool(blocks)
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    for name, args in turn.calls:
        searched = scripted_search.anthropic_blocks(server, name, args, body)
        if searched is not None:
            blocks.extend(searched)
            continue
        value = json.loads(args) if isinstance(args, str) and _is_json(args) else args
        tool_id = server.next_id("toolu")
        if thought:
            server.issue(("anthropic_turn", tool_id), True)
            thought = False
        blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": value})
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    usage = {
        **server.cache.anthropic(body, _usage_in(body))._asdict(),
        "output_tokens": len(turn.text) // 4 + 1,
    }
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
        if block["type"] in ("thinking", "redacted_thinking"):
            yield from _thinking_events(index, block)
        elif block["type"] == "text":
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
        elif block["type"] == "tool_search_tool_result":
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        else:
            head = {"type": block["type"], "id": block["id"], "name": block["name"], "input": {}}
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
            "usage": usage,  # cumulative, input side included, as the API sends it
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _thinking_blocks(server: ScriptedServer, turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.reasoning:
        signature = "Eq" + server.next_id("sig")
        server.issue(("thinking", signature), turn.reasoning)
        blocks.append({"type": "thinking", "thinking": turn.reasoning, "signature": signature})
    if turn.redacted:
        data = "EmwK" + server.next_id("redacted")
        server.issue(("redacted", data), True)
        blocks.append({"type": "redacted_thinking", "data": data})
    return blocks


def _thinking_events(index: int, block: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    if block["type"] == "redacted_thinking":
        start = block
    else:
        start = {"type": "thinking", "thinking": "", "signature": ""}
    yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
    if block["type"] == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
