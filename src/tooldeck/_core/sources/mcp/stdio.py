"""The stdio transport: a server run as a child process, speaking JSON-RPC lines on its stdin/stdout.

Our own rather than the SDK's, for three things a supervisor needs: the child gets exactly the
environment it was given (the SDK adds variables of its own choosing), its stderr is kept in a
file so a server that dies can be reported with its last words and exit code, and nothing the
server starts outlives it. On Linux the child is `reaper.py`, a small subreaper that runs the
server (which inherits the pipes: nothing is forwarded) and, when the server ends, when it is
told to stop or when tooldeck dies (even by SIGKILL or `os._exit`), kills every process under
it, those that left the server's process group (`setsid`) included. Elsewhere the server is
the child, in a process group of its own, and is killed with its group. Closing the transport
closes the server's stdin, waits briefly, then has the child terminate everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tooldeck._core.sources.mcp.reaper import GRACE_S as REAPER_GRACE_S
from tooldeck._core.sources.mcp.sdk import sdk_loaded
from tooldeck._core.sources.mcp.settings import ServerSpec

# One JSON-RPC message per line; tool listings of big servers make long lines.
LINE_LIMIT = 64 * 1024 * 1024
EXIT_GRACE_S = 1.0
TERM_GRACE_S = 1.0
_PR_SET_PDEATHSIG = 1
_REAPER = Path(__file__).with_name("reaper.py")


def _parent_death_signal() -> Any:
    """A function for the forked child that asks Linux to SIGKILL it when its parent dies."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return arm


_ARM = _parent_death_signal()


def _reaped() -> bool:
    """Whether servers run under the reaper (Linux, with a Python to run it)."""
    return _ARM is not None and bool(sys.executable) and _REAPER.is_file()


def server_argv(spec: ServerSpec) -> list[str]:
    """What runs for a stdio server: the server under the reaper, or the server itself."""
    assert spec.command is not None
    if not _reaped():
        return [spec.command, *spec.args]
    # -I -S: no site-packages and no PYTHON* variables, so it starts fast whatever the env holds.
    reaper = [sys.executable, "-I", "-S", str(_REAPER), str(os.getpid()), "--"]
    return [*reaper, _executable(spec), *spec.args]


def _executable(spec: ServerSpec) -> str:
    """The server's program as the child's PATH and working directory find it; raised here as
    starting it directly would raise (the reaper could only report it as an exit code)."""
    command = spec.command or ""
    # Relative to the directory the server starts in, as the kernel would see it there.
    cwd = spec.cwd or os.getcwd()
    if os.sep in command:
        found = os.path.join(cwd, command)
        if os.path.isfile(found) and not os.access(found, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command)
        path = os.path.dirname(found)
        command = os.path.basename(found)
    else:
        path = os.pathsep.join(os.path.join(cwd, d) for d in os.get_exec_path(dict(spec.env)))
    resolved = shutil.which(command, path=path)
    if resolved is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), spec.command)
    return resolved


@dataclass
class ChildInfo:
    """What is known about the child: its pid, exit code, and what it wrote on stderr."""

    pid: int | None = None
    returncode: int | None = None
    # Whether the server answered `initialize`: one that never did has no session to end, so
    # closing it does not wait for it to leave by itself (a hung server would hold up the
    # caller's exit for the grace period, though nothing it offers was ever needed).
    answered: bool = False
    # Closed by the connection when it ends.
    stderr: IO[bytes] = field(default_factory=lambda: tempfile.TemporaryFile(prefix="tooldeck-mcp-"))  # noqa: SIM115

    def stderr_tail(self, limit: int = 600) -> str:
        """The end of the child's stderr (read without moving the child's file offset)."""
        try:
            fd = self.stderr.fileno()
            size = os.fstat(fd).st_size
            data = os.pread(fd, limit, max(0, size - limit))
        except (OSError, ValueError):
            return ""
        text = data.decode("utf-8", errors="replace").strip()
        return ("..." + text) if size > limit else text

    def describe_exit(self) -> str:
        code = self.returncode
        if code is None:
            return "closed its output"
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        tail = self.stderr_tail()
        return f"{how}: {tail}" if tail else how


@contextlib.asynccontextmanager
async def stdio_transport(spec: ServerSpec, info: ChildInfo) -> AsyncIterator[tuple[Any, Any]]:
    """Run the server; yields the (read, write) message streams an MCP ClientSession takes.

    The process is started before anything of the SDK is imported: a cold import takes most of
    a second, which the server spends starting up meanwhile.
    """
    reaped = _reaped()
    process = await asyncio.create_subprocess_exec(
        *server_argv(spec),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=info.stderr,
        env=dict(spec.env),
        cwd=spec.cwd,
        start_new_session=True,
        limit=LINE_LIMIT,
        # The reaper asks for its parent-death signal itself (a catchable one, to clean up).
        preexec_fn=None if reaped else _ARM,
    )
    info.pid = process.pid
    tasks: list[asyncio.Task[None]] = []
    try:
        await sdk_loaded()
    except BaseException:  # boundary: whatever ends the wait (cancellation too) stops the server first
        await _stop_shielded(process, tasks, info)
        raise
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage

    to_session, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_session = anyio.create_memory_object_stream[Any](0)
    adapter = mcp_types.jsonrpc_message_adapter

    async def read() -> None:
        assert process.stdout is not None
        async with to_session:
            while line := await process.stdout.readline():
                if not line.strip():
                    continue
                try:
                    item: Any = SessionMessage(adapter.validate_json(line, by_name=False))
                except ValueError as exc:
                    item = exc  # the session hands it to the message handler: garbage is reported
                try:
                    await to_session.send(item)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
            # The output ended: give the exit code a moment to arrive, so the loss can be explained.
            await _exited(process, 0.5)
            info.returncode = process.returncode

    async def write() -> None:
        assert process.stdin is not None
        async with from_session:
            async for message in from_session:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                process.stdin.write(data.encode("utf-8"))
                await process.stdin.drain()

    tasks += [asyncio.get_running_loop().create_task(c) for c in (read(), write())]
    try:
        yield read_stream, write_stream
    finally:
        try:
            await _stop_shielded(process, tasks, info)
        finally:
            for stream in (read_stream, write_stream, to_session, from_session):
                stream.close()


async def _stop_shielded(
    process: asyncio.subprocess.Process, tasks: list[asyncio.Task[None]], info: ChildInfo
) -> None:
    """`_stop`, seen through even when the task that asks for it is cancelled meanwhile."""
    stop = asyncio.ensure_future(_stop(process, tasks, info))
    try:
        await asyncio.shield(stop)
    except asyncio.CancelledError:
        await stop
        raise


async def _stop(
    process: asyncio.subprocess.Process, tasks: list[asyncio.Task[None]], info: ChildInfo
) -> None:
    """Close stdin, give the server a moment (if it ever answered), then terminate and kill its
    whole process group."""
    for task in tasks[1:]:  # the writer (none when the streams were never set up)
        task.cancel()
    if process.stdin is not None:
        with contextlib.suppress(OSError, RuntimeError):
            process.stdin.close()
    if not await _exited(process, EXIT_GRACE_S if info.answered else 0.0):
        if _reaped():
            # The reaper terminates everything under it, then kills what is left after its grace.
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        else:
            _signal_group(process.pid, signal.SIGTERM)
        if not await _exited(process, TERM_GRACE_S + REAPER_GRACE_S):
            _signal_group(process.pid, signal.SIGKILL)
            await _exited(process, TERM_GRACE_S)
    # Whatever the server started and left behind in its group goes too.
    _signal_group(process.pid, signal.SIGKILL)
    for task in tasks[:1]:  # the reader
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    info.returncode = process.returncode
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


async def _exited(process: asyncio.subprocess.Process, within: float) -> bool:
    # Polled, not process.wait(): that also waits for the pipes, which a grandchild may hold open.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while process.returncode is None:
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
