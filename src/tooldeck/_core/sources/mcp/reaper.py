"""The keeper of one stdio MCP server: every process the server starts ends with it.

    python -I -S reaper.py PARENT_PID -- COMMAND [ARG ...]

A server's tool may start processes that leave its process group (`setsid`, a daemon that
forks twice): killing the group misses them, and they would outlive the deck. So the server is
not tooldeck's child but this small process's, which is a child subreaper (Linux
`PR_SET_CHILD_SUBREAPER`): whatever the server starts and abandons is re-parented here instead
of to init, so this process always knows all of them. It works the same for root and other
users (a cgroup per server would need a writable cgroup v2 hierarchy, which other users, and
many containers, do not have).

The server inherits stdin, stdout and stderr directly (nothing is forwarded: this process
only waits). It ends, killing everything left under it, when

- the server exits (its exit code, or the signal that killed it, becomes this process's own),
- it is sent SIGTERM, SIGINT or SIGHUP (everything under it gets SIGTERM first and SIGKILL
  after the grace period), or
- its parent dies (it asks the kernel for a SIGTERM then).

It runs without site-packages (`-S`) and imports nothing of tooldeck: it starts in a few
milliseconds. An exec that fails writes its reason on stderr and exits 127.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
GRACE_S = 1.0
_STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_WATCHED = {signal.SIGCHLD, *_STOPS}
_KILLED = signal.SIGKILL.value  # the wait status of a process killed by SIGKILL


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: reaper.py PARENT_PID -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    parent, command = int(argv[1]), argv[3:]
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"tooldeck: cannot become a subreaper: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 125
    prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    # The signals are taken one at a time below, never by a handler.
    signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    if os.getppid() != parent:
        return 125  # the parent died before the death signal was asked for
    server = _start(command)
    # The server holds the pipes now: tooldeck must see them close when the server closes them.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    status = _wait(server)
    _kill_all(server)
    return _exit_as(status)


def _start(command: list[str]) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: the server, leading its own process group, killed if this process dies
        os.setpgid(0, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.execvp(command[0], command)
    except OSError as exc:
        why = "command not found" if isinstance(exc, FileNotFoundError) else f"cannot run it ({exc.strerror})"
        os.write(2, f"tooldeck: {why}: {command[0]}\n".encode())
    finally:
        os._exit(127)


def _wait(server: int) -> int:
    """Wait for the server's end (reaping every orphan meanwhile); its wait status."""
    deadline: float | None = None
    while True:
        timeout = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        info = signal.sigwaitinfo(_WATCHED) if timeout is None else signal.sigtimedwait(_WATCHED, timeout)
        status = _reap(server)
        if status is not None:
            return status
        if info is None:  # the grace period after a stop signal is over
            return _kill_all(server) or _KILLED
        if info.si_signo in _STOPS and deadline is None:
            for pid in _descendants(os.getpid()) or [server]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + GRACE_S


def _reap(server: int) -> int | None:
    """Reap every child that ended; the server's wait status if it was one of them."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if pid == 0:
            return found
        if pid == server:
            found = status


def _kill_all(server: int) -> int | None:
    """SIGKILL every process under this one until none is left; the server's wait status if it
    was still to be reaped."""
    me = os.getpid()
    found = None
    while True:
        under = _descendants(me)
        if under is None:
            return _kill_group(server)
        for pid in under:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            pid, status = os.waitpid(-1, 0)  # one ended; what it started is re-parented here
        except ChildProcessError:
            return found  # no child is left, so nothing is left under this process
        if pid == server:
            found = status


def _kill_group(server: int) -> int | None:
    """Without /proc, what can be found: the server's process group; the orphans that left it
    cannot be named, and are reaped only if they end now."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(server, signal.SIGKILL)
    found = None
    with contextlib.suppress(ChildProcessError):
        pid, status = os.waitpid(server, 0)
        found = status if pid == server else None
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    return found


def _descendants(root: int) -> list[int] | None:
    """Every process under `root`, from /proc (None when /proc cannot be read)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    if str(os.getpid()) not in entries:
        return None  # not this process's /proc (none mounted, or another namespace's)
    children: dict[int, list[int]] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # it ended meanwhile
        children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _exit_as(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return code
    # Die of the same signal, so the parent learns what killed the server.
    with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
        signal.signal(-code, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {-code})
    os.kill(os.getpid(), -code)
    return 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
