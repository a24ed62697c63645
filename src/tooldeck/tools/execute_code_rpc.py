"""The channel between code run by `execute_code` and the tools it may call.

Two pipes, inherited by the child (they cross the sandbox without a network or a shared
folder): the child writes one JSON request per line, `{"id": n, "tool": name, "arguments":
{...}}`, and reads one JSON reply per line, `{"id": n, "content": text, "error": null | {"type",
"message"}}`. The parent serves the requests one at a time for as long as the code runs; each
call goes through the executor (`ToolCaller`), approvals included. Only the tools listed in the
tool's description may be called; requests are bounded in size and number.

The child imports the generated module `tooldeck_tools`: `call(name, **arguments)` and one
function per callable tool whose name is a Python identifier.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import keyword
import os
import threading
from collections.abc import Iterable
from typing import Any, BinaryIO

from tooldeck.core import ToolCaller

MAX_REQUEST_BYTES = 1024 * 1024
MAX_CALLS = 200
FDS_VARIABLE = "TOOLDECK_RPC_FDS"

HELPER_TEMPLATE = '''"""Call the agent's tools from this program: each call is run by the agent's tool executor, with
its checks and approvals. A call returns the tool's text result; a failed call raises ToolCallError."""

import json as _json
import os as _os
import threading as _threading

__all__ = ["ToolCallError", "call", "TOOLS"]
TOOLS = {names!r}


class ToolCallError(Exception):
    def __init__(self, type, message):
        super().__init__(f"{{type}}: {{message}}")
        self.type = type
        self.message = message


_channel = _os.environ.get("{variable}")
if _channel:
    _read_fd, _write_fd = (int(_fd) for _fd in _channel.split(","))
    _replies = _os.fdopen(_read_fd, "r", encoding="utf-8")
    _requests = _os.fdopen(_write_fd, "w", encoding="utf-8")
_lock = _threading.Lock()
_count = 0


def call(tool, **arguments):
    """Call `tool` with keyword arguments; returns its result text."""
    global _count
    if not _channel:
        raise ToolCallError("unavailable", "this program was not started with a tool channel")
    with _lock:
        _count += 1
        _requests.write(_json.dumps({{"id": _count, "tool": tool, "arguments": arguments}}) + "\\n")
        _requests.flush()
        line = _replies.readline()
    if not line:
        raise ToolCallError("unavailable", "the tool channel is closed")
    reply = _json.loads(line)
    if reply.get("error"):
        raise ToolCallError(reply["error"]["type"], reply["error"]["message"])
    return reply["content"]
'''

STUB_TEMPLATE = '''

def {name}(**arguments):
    """Call the tool {name!r}."""
    return call({name!r}, **arguments)
'''


def helper_source(names: Iterable[str]) -> str:
    """The `tooldeck_tools` module for these tool names."""
    names = sorted(names)
    text = HELPER_TEMPLATE.format(names=names, variable=FDS_VARIABLE)
    for name in names:
        if (
            name.isidentifier()
            and not keyword.iskeyword(name)
            and name not in ("call", "ToolCallError", "TOOLS")
        ):
            text += STUB_TEMPLATE.format(name=name)
    return text


class RpcServer:
    """Serves one run's tool calls on a thread; `child_fds` go to the child, `close` ends it."""

    def __init__(self, caller: ToolCaller, allowed: Iterable[str], *, max_calls: int = MAX_CALLS) -> None:
        self.caller = caller
        self.allowed = frozenset(allowed)
        self.max_calls = max_calls
        self.calls = 0
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        self.child_fds = (reply_read, request_write)
        self._requests: BinaryIO = os.fdopen(request_read, "rb")
        self._replies: BinaryIO = os.fdopen(reply_write, "wb")
        self._thread = threading.Thread(target=self._serve, name="tooldeck-rpc", daemon=True)

    @property
    def environment(self) -> dict[str, str]:
        return {FDS_VARIABLE: ",".join(str(fd) for fd in self.child_fds)}

    def start(self) -> None:
        self._thread.start()

    def child_started(self) -> None:
        """Close our copies of the child's ends, so its exit is seen as the end of the requests."""
        for fd in self.child_fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        """After the child has ended: wait for the last request to be served, then close."""
        if self._thread.ident is not None:
            self._thread.join(timeout=2)
        with contextlib.suppress(OSError):
            self._requests.close()
        with contextlib.suppress(OSError):
            self._replies.close()

    def _serve(self) -> None:
        try:
            while True:
                line = self._requests.readline(MAX_REQUEST_BYTES + 1)
                if not line:
                    return
                reply = self._answer(line)
                self._replies.write((json.dumps(reply, ensure_ascii=False) + "\n").encode("utf-8", "replace"))
                self._replies.flush()
                if reply.get("fatal"):
                    return
        except (OSError, ValueError):  # the child went away, or we closed: nothing left to serve
            return
        finally:
            # Later requests fail at once in the child instead of waiting: a request written
            # meets a broken pipe, and one written just before (after a fatal reply, while this
            # thread was ending) finds the replies closed, not a reader that never answers.
            with contextlib.suppress(OSError):
                self._requests.close()
            with contextlib.suppress(OSError):
                self._replies.close()

    def _answer(self, line: bytes) -> dict[str, Any]:
        if len(line) > MAX_REQUEST_BYTES or not line.endswith(b"\n"):
            return _error(None, "invalid_arguments", f"request over {MAX_REQUEST_BYTES} bytes", fatal=True)
        try:
            request = json.loads(line)
        except ValueError as exc:
            return _error(None, "invalid_arguments", f"request is not JSON: {exc}")
        ident = request.get("id") if isinstance(request, dict) else None
        tool, arguments = (
            (request.get("tool"), request.get("arguments")) if isinstance(request, dict) else (None, None)
        )
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            return _error(ident, "invalid_arguments", 'a request is {"tool": name, "arguments": {...}}')
        if tool not in self.allowed:
            callable_ = ", ".join(sorted(self.allowed)) or "none"
            return _error(
                ident, "unknown_tool", f"{tool!r} cannot be called from this code; callable: {callable_}"
            )
        self.calls += 1
        if self.calls > self.max_calls:
            return _error(ident, "denied", f"more than {self.max_calls} tool calls in one run", fatal=True)
        try:
            result = self.caller.call(tool, arguments)
        except concurrent.futures.CancelledError:
            return _error(ident, "cancelled", "the run was stopped", fatal=True)
        error = result.error
        if error is not None:
            return _error(ident, error.type, error.message)
        return {"id": ident, "content": result.content, "error": None}


def _error(ident: Any, type_: str, message: str, *, fatal: bool = False) -> dict[str, Any]:
    reply: dict[str, Any] = {"id": ident, "content": None, "error": {"type": type_, "message": message}}
    if fatal:
        reply["fatal"] = True
    return reply
