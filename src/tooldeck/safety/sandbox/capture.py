"""Running a process group with a timeout and capped, merged output.

The child starts in a new session, so at the timeout (or when the caller's cancel event is set)
one `killpg` reaches it and every child it started. Standard output and error share one pipe; a reader thread keeps the first and the last
part of what arrives and counts what it dropped in between, so a command printing gigabytes
costs a bounded amount of memory, and the result says how much was cut.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from io import BufferedReader


@dataclass(frozen=True, slots=True)
class RunResult:
    """What running one command produced."""

    # The exit status; None when the command was killed at the timeout.
    exit_code: int | None
    # Standard output and error, merged; when over the limit, its head and tail with a marker.
    output: str
    timed_out: bool
    # Bytes left out of `output` (0 when nothing was cut).
    cut_bytes: int
    duration_s: float
    sandboxed: bool
    # Which of the sandbox's resource limits the command ran into, as a sentence; None if none.
    limit: str | None = None


class _CappedReader:
    def __init__(self, stream: BufferedReader, limit: int) -> None:
        self.stream = stream
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0
        self.thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        while True:
            chunk = self.stream.read1(65536)
            if not chunk:
                return
            room = self.head_limit - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            overflow = len(self.tail) - self.tail_limit
            if overflow > 0:
                del self.tail[:overflow]
                self.cut += overflow

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if not self.cut:
            return head + tail
        return f"{head}\n[... {self.cut} bytes of output cut ...]\n{tail}"


def run_capped(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout_s: float,
    output_limit: int,
    sandboxed: bool,
    cancel: threading.Event | None = None,
    pass_fds: Sequence[int] = (),
) -> RunResult:
    """Run `argv` in a new session; kill the whole group at `timeout_s` or when `cancel` is set;
    keep `output_limit` bytes. `pass_fds` stay open in the child (for a private channel)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )
    assert isinstance(proc.stdout, BufferedReader)
    reader = _CappedReader(proc.stdout, output_limit)
    reader.thread.start()
    timed_out = False
    try:
        timed_out = not _wait(proc, start + timeout_s, cancel)
        if timed_out or proc.poll() is None:
            _kill_group(proc.pid)
            proc.wait()
    finally:
        if proc.poll() is None:  # interrupted while waiting: leave nothing behind
            _kill_group(proc.pid)
            proc.wait()
    reader.thread.join(timeout=0.2)
    if reader.thread.is_alive():
        # Background children of the command still hold the pipe: they do not outlive it (in the
        # sandbox its pid namespace ends with it; on the host its process group is killed). The
        # group id cannot have been reused while its members hold the pipe.
        _kill_group(proc.pid)
    # A descendant that left the process group may still hold the pipe open: do not wait for it.
    reader.thread.join(timeout=2)
    proc.stdout.close()
    exit_code = None if timed_out else proc.returncode
    return RunResult(exit_code, reader.text(), timed_out, reader.cut, time.monotonic() - start, sandboxed)


def _wait(proc: subprocess.Popen[bytes], deadline: float, cancel: threading.Event | None) -> bool:
    """Wait for the child; False when the deadline passed first. Returns early on cancel.

    A pidfd wakes the wait the moment the child ends; `Popen.wait(timeout)` polls with sleeps
    that double up to 50 ms, which added up to tens of milliseconds to every short command."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except OSError:  # an old kernel (before Linux 5.3), or the child is already gone
        pidfd = -1
    poller = select.poll()
    if pidfd >= 0:
        poller.register(pidfd, select.POLLIN)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            step = left if cancel is None else min(left, 0.05)
            if pidfd >= 0:
                poller.poll(step * 1000)
                if proc.poll() is not None:
                    return True
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=step)
                    return True
            if cancel is not None and cancel.is_set():
                return True  # stopped by the caller: killed below, not a timeout
    finally:
        if pidfd >= 0:
            os.close(pidfd)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(pgid, signal.SIGKILL)
