"""Running a handler in a child process that can really be stopped (`Tool(isolation="process")`).

A sync handler on a worker thread cannot be stopped: at its deadline it is abandoned, and its
work may still complete. With process isolation the handler runs in a forked child in its own
process group; at the deadline (or when the batch is cancelled) the whole group is killed, so
neither the handler nor anything it started lives on. The result comes back over a pipe
(pickled; a value that cannot be pickled is sent as its text). The cost is a fork per call.

The fork happens on a worker thread, never on the event loop's thread, so the child can run an
async handler in an event loop of its own.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from tooldeck._utils.text import describe_exception, exception_text
from tooldeck.errors import ToolError

# How often the parent looks at the cancel event while it waits for the child.
_POLL_S = 0.05


class _IsolatedCrash(Exception):
    """The child died without sending a result (killed, crashed in C code, exit)."""


def run_in_child(fn: Callable[[], Any], cancel: threading.Event | None) -> Any:
    """Call `fn` in a forked child and return its result (or raise its exception).

    Blocks the calling (worker) thread; when `cancel` is set the child's process group is
    killed and `ToolError(type="timeout")` is raised.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child(fn, write_fd)
    os.close(write_fd)
    try:
        data = _collect(read_fd, pid, cancel)
    finally:
        os.close(read_fd)
    kind, payload = pickle.loads(data) if data else ("crash", None)
    if kind == "ok":
        return payload
    if kind == "error" and isinstance(payload, Exception):
        raise payload
    _, status = os.waitpid(pid, os.WNOHANG) if _alive(pid) else (pid, 0)
    raise _IsolatedCrash(f"the isolated handler's process ended without a result (status {status})")


def _child(fn: Callable[[], Any], write_fd: int) -> None:
    try:
        os.setsid()  # its own process group: killed as a whole
        try:
            message = ("ok", _sendable(fn()))
        except BaseException as exc:  # boundary: whatever the handler raised goes to the parent
            message = ("error", _sendable_error(exc))
        blob = pickle.dumps(message)
        with os.fdopen(write_fd, "wb") as out:
            out.write(blob)
    finally:
        os._exit(0)


def _sendable(value: Any) -> Any:
    try:
        pickle.dumps(value)
        return value
    except Exception:  # boundary: an unpicklable result travels as its text
        from tooldeck._core.execution.result_text import to_text

        return to_text(value)


def _sendable_error(exc: BaseException) -> Exception:
    if isinstance(exc, ToolError):
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # boundary: a ToolError subclass that does not pickle
            return ToolError(exception_text(exc), type=exc.type, retryable=exc.retryable)
    return RuntimeError(describe_exception(exc))


def _collect(read_fd: int, pid: int, cancel: threading.Event | None) -> bytes:
    chunks: list[bytes] = []
    while True:
        if cancel is not None and cancel.is_set():
            _kill_group(pid)
            raise ToolError("the isolated handler was killed at its deadline", type="timeout")
        ready, _, _ = select.select([read_fd], [], [], _POLL_S)
        if not ready:
            continue
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            # Kill what the handler left running while the exited child still holds the group id.
            _kill_leftovers(pid)
            _reap(pid)
            return b"".join(chunks)
        chunks.append(chunk)


def _kill_group(pid: int) -> None:
    _kill_leftovers(pid)
    _reap(pid)


def _kill_leftovers(pid: int) -> None:
    """Processes the handler started and left running die with the call."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _reap(pid: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True
