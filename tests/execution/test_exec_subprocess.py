"""Subprocess tools: the whole process group dies on timeout or cancellation (real processes)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

from tooldeck import tool
from tooldeck._core.execution.executor import Executor
from tooldeck._utils.processes import run_process, run_process_sync

from .helpers import loadout, one

# A shell that starts a grandchild and records its pid, then waits forever: a call that returns
# at all was not waited for. The timeouts leave a loaded machine time to start the shell and
# its grandchild before they are killed (a kill before the pid is written proves nothing).
SPAWN = 'sleep 300 & echo $! > "$1"; wait'
SPAWN_TIMEOUT_S = 2.0


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent, the killed shell, cannot reap it yet).
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for_pid(path: Path, within: float = 60.0) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError("the child never wrote its pid")


def gone_soon(pid: int, within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def test_sync_run_returns_output() -> None:
    done = run_process_sync([sys.executable, "-c", "print('hi'); import sys; sys.exit(3)"])
    assert (done.returncode, done.stdout.strip(), done.ok) == (3, "hi", False)


def test_sync_timeout_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    done = run_process_sync(["sh", "-c", SPAWN, "sh", str(pidfile)], timeout=SPAWN_TIMEOUT_S)
    assert done.timed_out
    assert gone_soon(wait_for_pid(pidfile))


def test_async_timeout_and_cancellation_kill_the_process_group(tmp_path: Path) -> None:
    async def main() -> None:
        pid1 = tmp_path / "p1"
        done = await run_process(["sh", "-c", SPAWN, "sh", str(pid1)], timeout=SPAWN_TIMEOUT_S)
        assert done.timed_out
        assert gone_soon(wait_for_pid(pid1))
        pid2 = tmp_path / "p2"
        task = asyncio.create_task(run_process(["sh", "-c", SPAWN, "sh", str(pid2)]))
        await asyncio.to_thread(wait_for_pid, pid2)  # cancelled once the grandchild runs
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert gone_soon(wait_for_pid(pid2))

    asyncio.run(main())


class _PipesWiredOnRelease(asyncio.SelectorEventLoop):
    """A loop that wires a new child's pipes only once `release` is set: the child (and the
    grandchild it starts) runs while asyncio is still inside `create_subprocess_exec`."""

    release: asyncio.Event

    async def connect_read_pipe(self, *args: Any, **kwargs: Any) -> Any:
        await self.release.wait()
        return await super().connect_read_pipe(*args, **kwargs)


def test_a_cancellation_while_the_pipes_are_wired_kills_the_process_group(tmp_path: Path) -> None:
    """Cancelled after the child started but before asyncio finished setting it up (a busy
    loop's window, widened here): asyncio alone would kill the child and leave its grandchild."""
    pidfile = tmp_path / "pid"

    async def main() -> None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, _PipesWiredOnRelease)
        loop.release = asyncio.Event()
        task = asyncio.create_task(run_process(["sh", "-c", SPAWN, "sh", str(pidfile)]))
        await asyncio.to_thread(wait_for_pid, pidfile)  # the grandchild runs; no pipe is wired yet
        task.cancel()
        await asyncio.sleep(0)  # the cancellation reaches the start
        loop.release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert task.cancelled()

    with asyncio.Runner(loop_factory=_PipesWiredOnRelease) as runner:
        runner.run(main())
    assert gone_soon(wait_for_pid(pidfile))


def test_an_executor_timeout_kills_a_sync_tools_subprocess_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    @tool(timeout=SPAWN_TIMEOUT_S)
    def long_job() -> str:
        """Runs a shell that never ends."""
        return run_process_sync(["sh", "-c", SPAWN, "sh", str(pidfile)]).stdout

    result = one(Executor(loadout(long_job)), "long_job")
    assert result.error is not None and result.error.type == "timeout"
    assert gone_soon(wait_for_pid(pidfile))


def test_an_executor_timeout_kills_an_async_tools_subprocess_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    @tool(timeout=SPAWN_TIMEOUT_S)
    async def long_job() -> str:
        """Runs a shell that never ends."""
        return (await run_process(["sh", "-c", SPAWN, "sh", str(pidfile)])).stdout

    result = one(Executor(loadout(long_job)), "long_job")
    assert result.error is not None and result.error.type == "timeout"
    assert gone_soon(wait_for_pid(pidfile))
