"""A scripted model server on loopback that speaks three wire formats, streaming included.

    POST /v1/chat/completions   OpenAI Chat Completions (any OpenAI-compatible SDK)
    POST /v1/responses          OpenAI Responses
    POST /v1/messages           Anthropic Messages

One script serves all three: each step is a `Turn` (text and/or tool calls, or an HTTP error)
or a function of the recorded request returning one. The official SDKs talk to it over real
HTTP, so the tests exercise what really goes over the wire. Every request is recorded with
format-independent helpers (`tool_names`, `tool_results`, `tool_call_ids`).

Use the `scripted_server` fixture (tests/agent/conftest.py) or `with ScriptedServer([...]) as s:`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


Step = Turn | Callable[["Recorded"], Turn]


@dataclass
class Recorded:
    """A request as the server received it."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def kind(self) -> str:
        if self.path.endswith("/chat/completions"):
            return "chat"
        if self.path.endswith("/responses"):
            return "responses"
        return "anthropic"

    def tool_names(self) -> list[str]:
        names = []
        for t in self.body.get("tools") or []:
            names.append(t["function"]["name"] if "function" in t else t["name"])
        return names

    def tool_results(self) -> list[tuple[str, str]]:
        """(call id, content) of every tool result in the history, in order."""
        out: list[tuple[str, str]] = []
        if self.kind == "chat":
            out = [(m["tool_call_id"], m["content"]) for m in self.body["messages"] if m["role"] == "tool"]
        elif self.kind == "responses":
            items = self.body["input"] if isinstance(self.body["input"], list) else []
            out = [(i["call_id"], i["output"]) for i in items if i.get("type") == "function_call_output"]
        else:
            for m in self.body["messages"]:
                for block in m["content"] if isinstance(m["content"], list) else []:
                    if block.get("type") == "tool_result":
                        content = block.get("content")
                        if isinstance(content, list):
                            content = "".join(c.get("text", "") for c in content)
                        out.append((block["tool_use_id"], content or ""))
        return out

    def tool_call_ids(self) -> list[str]:
        """Ids of every tool call the assistant made in the history, in order."""
        if self.kind == "chat":
            return [c["id"] for m in self.body["messages"] for c in m.get("tool_calls") or []]
        if self.kind == "responses":
            items = self.body["input"] if isinstance(self.body["input"], list) else []
            return [i["call_id"] for i in items if i.get("type") == "function_call"]
        return [
            b["id"]
            for m in self.body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_use"
        ]

    def text_of(self, role: str) -> list[str]:
        """Plain text of the messages with `role` (user/assistant), whatever the format."""
        msgs = self.body.get("messages") or self.body.get("input") or []
        out = []
        for m in msgs if isinstance(msgs, list) else []:
            if m.get("role") != role:
                continue
            content = m.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                text = "".join(b.get("text", "") for b in content if b.get("type") in ("text", "input_text"))
                if text:
                    out.append(text)
        return out

    @property
    def system(self) -> str | None:
        if self.kind == "chat":
            first = self.body["messages"][0]
            return str(first["content"]) if first["role"] == "system" else None
        if self.kind == "responses":
            return self.body.get("instructions")
        system = self.body.get("system")
        if isinstance(system, list):
            return "".join(b.get("text", "") for b in system)
        return system


class ScriptedServer:
    """The server. Steps are consumed in order by whichever endpoint is called."""

    def __init__(self, script: Iterable[Step] = (), *, model: str = "scripted-model") -> None:
        self.script: list[Step] = list(script)
        self.model = model
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The host root (what the Anthropic SDK takes as base_url)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """The OpenAI-compatible base URL (ends in /v1)."""
        return f"{self.url}/v1"

    def add(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend(steps)

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids)}"

    def take(self, recorded: Recorded) -> Turn:
        with self._lock:
            self.requests.append(recorded)
            if not self.script:
                return Turn(
                    status=500, error=f"scripted server: no step left for request #{len(self.requests)}"
                )
            step = self.script.pop(0)
        return step if isinstance(step, Turn) else step(recorded)


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        # A client that gave up (a timeout under test) leaves nothing to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        recorded = Recorded(self.path, body, {k.lower(): v for k, v in self.headers.items()})
        turn = self.owner.take(recorded)
        if turn.delay_s:
            threading.Event().wait(turn.delay_s)
        if turn.status != 200:
            self._send_error(recorded.kind, turn)
            return
        render = {"chat": _chat, "responses": _responses, "anthropic": _anthropic}[recorded.kind]
        if body.get("stream"):
            events = list(render(self.owner, turn, body, stream=True))
            self._send_sse(events[: turn.cut_after] if turn.cut_after is not None else events)
        else:
            payload = next(iter(render(self.owner, turn, body, stream=False)))[1]
            self._send_json(200, payload, turn.headers)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _send_sse(self, events: Iterable[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        for name, data in events:
            chunk = "" if name is None else f"event: {name}\n"
            chunk += f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
            self.wfile.write(chunk.encode())
            self.wfile.flush()

    def _send_error(self, kind: str, turn: Turn) -> None:
        message = turn.error or f"scripted error {turn.status}"
        if kind == "anthropic":
            etype = {401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error"}.get(
                turn.status, "api_error" if turn.status >= 500 else "invalid_request_error"
            )
            payload: dict[str, Any] = {"type": "error", "error": {"type": etype, "message": message}}
        else:
            payload = {
                "error": {"message": message, "type": "invalid_request_error", "code": turn.error_code}
            }
        self._send_json(turn.status, payload, turn.headers)


def _pieces(text: str, n: int = 3) -> list[str]:
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _args_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _usage_in(body: dict[str, Any]) -> int:
    return len(json.dumps(body)) // 4


def _chat(
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


def _responses(
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


def _anthropic(
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
