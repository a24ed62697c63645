"""Running a child process for a tool so that a timeout or cancellation really stops it.

The child starts in its own session (a new process group); on timeout or cancellation the
whole group gets SIGTERM and, after a short grace, SIGKILL - so grandchildren (`sh -c`, `xargs`,
a server a script started) die too instead of lingering after the tool call has ended.

`run_process` is for async handlers (cancelling the awaiting task kills the group);
`run_process_sync` is for sync handlers running on executor worker threads: it watches the
call's cancel event, which the executor sets when the call times out or the batch is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol


class _CancelSource(Protocol):
    def cancel_event(self) -> threading.Event: ...


# The cancel event of the tool call running in this thread or task; set by the executor's runner.
CANCEL_SOURCE: contextvars.ContextVar[threading.Event | _CancelSource | None] = contextvars.ContextVar(
    "tooldeck_cancel", default=None
)


def current_cancel_event() -> threading.Event | None:
    """The cancel event of the tool call running in this thread or task, if any."""
    source = CANCEL_SOURCE.get()
    if source is None or isinstance(source, threading.Event):
        return source
    return source.cancel_event()


_POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """What a finished (or stopped) child process left behind."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled


def kill_group(pid: int, *, grace_s: float = 0.5) -> None:
    """SIGTERM the process group led by `pid`, then SIGKILL it if still alive after `grace_s`."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


async def run_process(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    grace_s: float = 0.5,
) -> ProcessResult:
    """Run `argv` in its own process group; kill the group on timeout or when cancelled."""
    starting = asyncio.ensure_future(asyncio.create_subprocess_exec(*argv, **_child_options(cwd, env, input)))
    try:
        proc = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled while asyncio was still wiring the pipes: the child may already run (and have
        # started children of its own). asyncio would kill only the child, so the start is let
        # finish and the whole group is stopped, as a cancellation later on stops it.
        with contextlib.suppress(Exception):
            await _stop_cancelled(await starting)
        raise
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate(input)
    except TimeoutError:
        await asyncio.to_thread(partial(kill_group, proc.pid, grace_s=grace_s))
        out, err = await proc.communicate()
        return ProcessResult(proc.returncode, _decode(out), _decode(err), timed_out=True)
    except asyncio.CancelledError:
        await _stop_cancelled(proc)
        raise
    return ProcessResult(proc.returncode, _decode(out), _decode(err))


async def _stop_cancelled(proc: asyncio.subprocess.Process) -> None:
    """Kill the group now, then reap the child and close its pipes (the cancellation goes on)."""
    kill_group(proc.pid, grace_s=0)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    with contextlib.suppress(OSError):
        await proc.communicate()


def _child_options(
    cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None, input: bytes | None
) -> dict[str, Any]:
    """How every tool's child starts: its own session (a group to kill), stdout/err captured."""
    return {
        "cwd": cwd,
        "env": dict(env) if env is not None else None,
        "stdin": subprocess.PIPE if input is not None else subprocess.DEVNULL,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "start_new_session": True,
    }


def run_process_sync(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    cancel: threading.Event | None = None,
    grace_s: float = 0.5,
) -> ProcessResult:
    """Blocking version; stops the group on timeout or when `cancel` (default: the call's) is set."""
    cancel = cancel if cancel is not None else current_cancel_event()
    proc = subprocess.Popen(list(argv), **_child_options(cwd, env, input))
    deadline = None if timeout is None else time.monotonic() + timeout
    pending_input = input
    while True:
        step = _POLL_S if cancel is not None else None
        if deadline is not None:
            left = max(0.0, deadline - time.monotonic())
            step = left if step is None else min(step, left)
        try:
            out, err = proc.communicate(pending_input, timeout=step)
            return ProcessResult(proc.returncode, _decode(out), _decode(err))
        except subprocess.TimeoutExpired:
            pending_input = None  # already handed to the child
        timed_out = deadline is not None and time.monotonic() >= deadline
        if timed_out or (cancel is not None and cancel.is_set()):
            kill_group(proc.pid, grace_s=grace_s if timed_out else 0)
            out, err = proc.communicate()
            return ProcessResult(
                proc.returncode, _decode(out), _decode(err), timed_out=timed_out, cancelled=not timed_out
            )
