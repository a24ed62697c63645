"""Timeouts that tell the truth: abandoned threads, cancelled coroutines, killed processes, and
async handlers that block the event loop."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tooldeck import ToolError, ToolOutput, tool
from tooldeck._core.execution.executor import Executor

from .helpers import loadout, one


def _eventually(condition: Callable[[], bool], what: str, within_s: float = 60.0) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {within_s:g} s"
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().split()[2] != "Z"


def test_a_sync_tool_past_its_deadline_is_abandoned_and_may_still_finish(tmp_path: Path) -> None:
    marker = tmp_path / "written"
    release = threading.Event()

    @tool(timeout=0.5)
    def slow_writer() -> str:
        """Waits, then writes a file."""
        release.wait(60)
        marker.write_text("done")
        return "ok"

    result = one(Executor(loadout(slow_writer)), "slow_writer")
    assert result.error is not None and result.error.type == "timeout"
    assert "abandoned" in result.error.message and "may still complete" in result.error.message
    assert not marker.exists()
    release.set()
    _eventually(marker.exists, "the abandoned call's write")  # exactly what the envelope warned about


def test_process_isolation_kills_the_work_and_everything_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "written"
    pidfile = tmp_path / "pid"

    # The deadline leaves a loaded machine time to fork and start the grandchild; the handler
    # would sleep far past the test, so a result at all means the call was not waited for.
    @tool(timeout=3, isolation="process")
    def spawner() -> str:
        """Starts a long child process, sleeps, then writes a file."""
        import subprocess

        child = subprocess.Popen(["sleep", "377"])
        pidfile.write_text(f"{os.getpid()} {child.pid}")
        time.sleep(600)
        marker.write_text("done")
        return "ok"

    result = one(Executor(loadout(spawner)), "spawner")
    assert result.error is not None and result.error.type == "timeout"
    assert "killed at the deadline" in result.error.message
    handler, grandchild = map(int, pidfile.read_text().split())
    _eventually(lambda: not _alive(handler) and not _alive(grandchild), "the call's processes dying")
    assert not marker.exists()


def test_isolated_calls_return_values_outputs_and_errors() -> None:
    @tool(isolation="process")
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    @tool(isolation="process")
    def updates() -> ToolOutput:
        """State update from a child."""
        return ToolOutput("noted", update={"artifacts": [str(os.getpid())]})

    @tool(isolation="process")
    def refuses() -> str:
        """A clean failure."""
        raise ToolError("not today", type="denied")

    @tool(isolation="process")
    async def async_in_child() -> str:
        """An async handler in the child."""
        return f"pid {os.getpid()}"

    ex = Executor(loadout(add, updates, refuses, async_in_child))
    assert one(ex, "add", {"a": 2, "b": 3}).content == "5"
    result = one(ex, "updates")
    assert (
        result.content == "noted"
        and result.update is not None
        and result.update.artifacts != (str(os.getpid()),)
    )
    denied = one(ex, "refuses")
    assert denied.error is not None and (denied.error.type, denied.error.message) == ("denied", "not today")
    assert one(ex, "async_in_child").content != f"pid {os.getpid()}"


def test_an_async_tool_that_blocks_the_loop_is_reported_not_passed_off_as_done() -> None:
    @tool(timeout=0.3)
    async def blocker() -> str:
        """Calls blocking code from an async handler."""
        time.sleep(1.0)
        return "done"

    result = one(Executor(loadout(blocker)), "blocker")
    assert result.error is not None and result.error.type == "timeout"
    assert "blocked the event loop" in result.error.message
