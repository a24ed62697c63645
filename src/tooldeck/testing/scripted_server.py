"""A scripted model server on loopback that speaks three wire formats, streaming included.

    POST /v1/chat/completions   OpenAI Chat Completions (any OpenAI-compatible SDK)
    POST /v1/responses          OpenAI Responses
    POST /v1/messages           Anthropic Messages

It lets `tooldeck run`, `chat` and `batch` (and your own tests) run whole agent loops, tool calls
included, without a paid model. From the command line:

    python -m tooldeck.testing.scripted_server [--port N] [--calls FILE.json] [--answer TEXT]

prints the OpenAI-compatible base URL (`http://127.0.0.1:PORT/v1`; the Anthropic base URL is
the same without `/v1`) on the first line of stdout once it is ready, and serves until it is
interrupted or `--max-s` passes; with `--until-eof`, until its stdin closes, so a program that
starts it cannot leave it behind. Every conversation gets the same script: the tool calls of
`--calls` (a JSON list of `{"name", "arguments"}`), one per reply, then the answer (`--answer`,
by default "answer: " and the conversation's first user message).

In Python, one script serves all three formats: each step is a `Turn` (text and/or tool calls,
or an HTTP error) or a function of the recorded request returning one. When the script runs
out, a `responder` (if given) answers every further request from what it holds, which suits
many concurrent conversations (a batch; see `tool_rounds`); `latency_s` delays every reply by a
fixed time (a model's think time). Like the providers, it caches prompts and reports cache
reads and writes in each reply's usage, in each provider's own fields (`scripted_cache`;
`cache_min_tokens` is the shortest prefix it caches). A turn may carry `reasoning` (and Gemini-style
`thought_signatures`): the server sends it as each provider does and, like those providers,
refuses a later request that does not give it back (see `scripted_reasoning`). The official
SDKs talk to it over real HTTP, so tests exercise what really goes over the wire. Every request is recorded with format-independent
helpers (`tool_names`, `tool_results`, `tool_images`, `tool_call_ids`).

    with ScriptedServer([Turn(calls=[("read_file", {"path": "a.txt"})]), Turn("done")]) as server:
        ...  # model.base_url: server.openai_url (OpenAI-compatible) or server.url (Anthropic)
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

from tooldeck.testing import scripted_formats as formats
from tooldeck.testing.scripted_cache import PromptCache
from tooldeck.testing.scripted_formats import Turn as Turn
from tooldeck.testing.scripted_reasoning import refusal
from tooldeck.testing.scripted_search import search_refusal

Step = Turn | Callable[["Recorded"], Turn]

# A base64 `data:` URL (the form OpenAI's image parts carry an image in).
_DATA_URL = re.compile(r"data:(?P<mime>[^;,]+);base64,(?P<data>.*)", re.DOTALL)


class ToolImage(NamedTuple):
    """An image a request carried with a tool result: the call it answers, its media type and
    its bytes in base64. An image given by anything but base64 bytes (a remote URL, a file id)
    has mime_type "" and `data` as sent."""

    call_id: str
    mime_type: str
    data: str


def _text_parts(content: Any, kinds: tuple[str, ...]) -> str:
    """A content value as text: a string as it is, a list of parts as its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") in kinds
        )
    return ""


def _from_url(call_id: str, url: Any) -> ToolImage:
    found = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
    if found is None:
        return ToolImage(call_id, "", str(url))
    return ToolImage(call_id, found["mime"], found["data"])


@dataclass
class Recorded:
    """A request as the server received it."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)  # when it arrived

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
        """(call id, content) of every tool result in the history, in order; a result given as
        a list of parts (text beside images) is its text parts joined."""
        out: list[tuple[str, str]] = []
        if self.kind == "chat":
            out = [
                (m["tool_call_id"], _text_parts(m.get("content"), ("text",)))
                for m in self.body["messages"]
                if m["role"] == "tool"
            ]
        elif self.kind == "responses":
            out = [
                (i["call_id"], _text_parts(i.get("output"), ("input_text", "output_text")))
                for i in self._items()
                if i.get("type") == "function_call_output"
            ]
        else:
            for block in self._anthropic_blocks("tool_result"):
                out.append((block["tool_use_id"], _text_parts(block.get("content"), ("text",))))
        return out

    def tool_images(self) -> list[ToolImage]:
        """The images that came with tool results in the history, in order, as `ToolImage`s.

        Responses and Anthropic carry them inside the result (`input_image` parts, `image`
        blocks); Chat Completions' tool messages take text only, so there they are the
        `image_url` parts of the user message that follows a run of tool messages, each
        belonging to the call its preceding text part names ("" when none does)."""
        if self.kind == "chat":
            return self._chat_tool_images()
        out: list[ToolImage] = []
        if self.kind == "responses":
            for item in self._items():
                output = item.get("output")
                if item.get("type") != "function_call_output" or not isinstance(output, list):
                    continue
                for part in output:
                    if isinstance(part, dict) and part.get("type") == "input_image":
                        out.append(_from_url(item["call_id"], part.get("image_url") or part.get("file_id")))
            return out
        for block in self._anthropic_blocks("tool_result"):
            content = block.get("content")
            for part in content if isinstance(content, list) else []:
                if not isinstance(part, dict) or part.get("type") != "image":
                    continue
                source = part.get("source") or {}
                if source.get("type") == "base64":
                    out.append(
                        ToolImage(block["tool_use_id"], str(source.get("media_type", "")), source["data"])
                    )
                else:
                    out.append(ToolImage(block["tool_use_id"], "", str(source.get("url", source))))
        return out

    def _chat_tool_images(self) -> list[ToolImage]:
        out: list[ToolImage] = []
        run: list[str] = []  # the call ids of the tool messages just before
        for m in self.body["messages"]:
            if m["role"] == "tool":
                run.append(m["tool_call_id"])
                continue
            if m["role"] == "user" and run and isinstance(m.get("content"), list):
                current = ""
                for part in m["content"]:
                    if not isinstance(part, dict):
                        continue
                    if part.get("type") == "text":
                        named = [cid for cid in run if cid in str(part.get("text", ""))]
                        current = max(named, key=len) if named else current
                    elif part.get("type") == "image_url":
                        url = part.get("image_url")
                        out.append(_from_url(current, url.get("url") if isinstance(url, dict) else url))
            run = []
        return out

    def _items(self) -> list[dict[str, Any]]:
        """A Responses request's input items (none when the input is a plain string)."""
        items = self.body.get("input")
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []

    def _anthropic_blocks(self, kind: str) -> list[dict[str, Any]]:
        """An Anthropic request's content blocks of type `kind`, in order."""
        return [
            block
            for m in self.body["messages"]
            for block in (m["content"] if isinstance(m["content"], list) else [])
            if isinstance(block, dict) and block.get("type") == kind
        ]

    def tool_call_ids(self) -> list[str]:
        """Ids of every tool call the assistant made in the history, in order."""
        if self.kind == "chat":
            return [c["id"] for m in self.body["messages"] for c in m.get("tool_calls") or []]
        if self.kind == "responses":
            return [i["call_id"] for i in self._items() if i.get("type") == "function_call"]
        return [b["id"] for b in self._anthropic_blocks("tool_use")]

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

    def __init__(
        self,
        script: Iterable[Step] = (),
        *,
        model: str = "scripted-model",
        responder: Callable[[Recorded], Turn] | None = None,
        latency_s: float = 0.0,
        record: bool = True,
        port: int = 0,
        cache_min_tokens: int = 1024,
    ) -> None:
        self.script: list[Step] = list(script)
        self.model = model
        self.responder = responder
        self.latency_s = latency_s
        self.record = record  # False: keep no requests (a long benchmark would hold them all)
        self._port = port  # 0: any free port
        # The provider's prompt cache: cache reads and writes in every reply's usage.
        self.cache = PromptCache(min_tokens=cache_min_tokens)
        self.served = 0
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._issued: dict[tuple[str, str], Any] = {}  # what reasoning replies carried, to come back
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = _Server(("127.0.0.1", self._port), Handler)
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

    def issue(self, key: tuple[str, str], value: Any) -> None:
        """Remember what a reply carried that later requests must give back."""
        self._issued[key] = value

    def issued(self, key: tuple[str, str]) -> Any:
        return self._issued.get(key)

    def was_issued(self, key: tuple[str, str]) -> bool:
        return key in self._issued

    def take(self, recorded: Recorded) -> Turn:
        with self._lock:
            self.served += 1
            if self.record:
                self.requests.append(recorded)
            refused = refusal(self, recorded.kind, recorded.body)
            if refused is not None:
                return refused
            broken = search_refusal(recorded.kind, recorded.body)
            if broken is not None:
                return Turn(status=400, error=broken)
            if not self.script and self.responder is not None:
                return self.responder(recorded)
            if not self.script:
                return Turn(status=500, error=f"scripted server: no step left for request #{self.served}")
            step = self.script.pop(0)
        return step if isinstance(step, Turn) else step(recorded)


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # many clients connect at once in batch tests and benchmarks


def tool_rounds(
    calls: list[tuple[str, dict[str, Any] | str]],
    answer: Callable[[Recorded], str] | None = None,
    *,
    reasoning: str = "",
    thought_signatures: bool = False,
) -> Callable[[Recorded], Turn]:
    """A responder for many conversations at once: call `calls[i]` when the request holds i tool
    results, then answer (by default: "answer: " and the conversation's first user message).
    With `reasoning`, every reply reasons first (and must get its reasoning back); with
    `thought_signatures`, tool calls carry Gemini's signatures."""

    def respond(recorded: Recorded) -> Turn:
        done = len(recorded.tool_results())
        if done < len(calls):
            return Turn(calls=[calls[done]], reasoning=reasoning, thought_signatures=thought_signatures)
        if answer is not None:
            return Turn(text=answer(recorded), reasoning=reasoning)
        users = recorded.text_of("user")
        return Turn(text="answer: " + (users[0] if users else ""), reasoning=reasoning)

    return respond


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
        if turn.delay_s or self.owner.latency_s:
            threading.Event().wait(turn.delay_s + self.owner.latency_s)
        if turn.status != 200:
            self._send_error(recorded.kind, turn)
            return
        render = {"chat": formats.chat, "responses": formats.responses, "anthropic": formats.anthropic}[
            recorded.kind
        ]
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
        if turn.error_body is not None:
            self._send_json(turn.status, turn.error_body, turn.headers)
            return
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


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _calls_from(path: str | None) -> list[tuple[str, dict[str, Any] | str]]:
    """The `--calls` file: a JSON list of {"name": str, "arguments": object or JSON text}."""
    if path is None:
        return []
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"scripted_server: --calls {path}: {exc}") from None
    if not isinstance(data, list):
        raise SystemExit(f"scripted_server: --calls {path}: expected a JSON list of calls")
    calls: list[tuple[str, dict[str, Any] | str]] = []
    for i, item in enumerate(data):
        name = item.get("name") if isinstance(item, dict) else None
        arguments = item.get("arguments", {}) if isinstance(item, dict) else None
        if not isinstance(name, str) or not isinstance(arguments, (dict, str)):
            raise SystemExit(
                f'scripted_server: --calls {path}: item {i} must be {{"name": "...", "arguments": {{...}}}}'
            )
        calls.append((name, arguments))
    return calls


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m tooldeck.testing.scripted_server")
    parser.add_argument(
        "--calls", help='a JSON list of {"name", "arguments"}: the tool calls of every conversation'
    )
    parser.add_argument("--answer", help='the final answer (default: "answer: " and the first user message)')
    parser.add_argument(
        "--reasoning", default="", help="every reply reasons this text first, and must get it back"
    )
    parser.add_argument(
        "--thought-signatures", action="store_true", help="tool calls carry Gemini-style thought signatures"
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds every reply waits")
    parser.add_argument("--rate-limit-every", type=int, default=0, help="answer every Nth request with a 429")
    parser.add_argument("--retry-after", type=float, default=0.2, help="the 429s' Retry-After, in seconds")
    parser.add_argument(
        "--cache-min-tokens", type=int, default=1024, help="the shortest prompt prefix the cache keeps"
    )
    parser.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    parser.add_argument("--max-s", type=float, default=None, help="stop after this many seconds")
    parser.add_argument("--until-eof", action="store_true", help="stop when stdin closes")
    args = parser.parse_args(argv)
    text = args.answer
    respond = tool_rounds(
        _calls_from(args.calls),
        (lambda _: text) if text is not None else None,
        reasoning=args.reasoning,
        thought_signatures=args.thought_signatures,
    )
    counter = itertools.count(1)
    lock = threading.Lock()

    def responder(recorded: Recorded) -> Turn:
        with lock:
            n = next(counter)
        if args.rate_limit_every and n % args.rate_limit_every == 0:
            return Turn(status=429, error="slow down", headers={"retry-after": str(args.retry_after)})
        return respond(recorded)

    server = ScriptedServer(
        responder=responder,
        latency_s=args.latency,
        record=False,
        port=args.port,
        cache_min_tokens=args.cache_min_tokens,
    )
    try:
        server.start()
    except OSError as exc:
        raise SystemExit(f"scripted_server: cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None
    print(server.openai_url, flush=True)
    try:
        if args.until_eof:
            stopper = threading.Thread(target=sys.stdin.read, daemon=True)
            stopper.start()
            stopper.join(timeout=args.max_s)
        else:
            threading.Event().wait(args.max_s)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
