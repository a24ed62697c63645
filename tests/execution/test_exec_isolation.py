"""Timeouts that tell the truth: abandoned threads, cancelled coroutines, killed processes, and
async handlers that block the event loop."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tooldeck import ToolError, ToolOutput, tool
from tooldeck.execution.executor import Executor

from .helpers import loadout, one


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().split()[2] != "Z"


def test_a_sync_tool_past_its_deadline_is_abandoned_and_may_still_finish(tmp_path: Path) -> None:
    marker = tmp_path / "written"

    @tool(timeout=0.5)
    def slow_writer() -> str:
        """Sleeps, then writes a file."""
        time.sleep(1.5)
        marker.write_text("done")
        return "ok"

    result = one(Executor(loadout(slow_writer)), "slow_writer")
    assert result.error is not None and result.error.type == "timeout"
    assert "abandoned" in result.error.message and "may still complete" in result.error.message
    time.sleep(1.6)
    assert marker.exists()  # exactly what the envelope warned about


def test_process_isolation_kills_the_work_and_everything_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "written"
    pidfile = tmp_path / "pid"

    @tool(timeout=0.8, isolation="process")
    def spawner() -> str:
        """Starts a long child process, sleeps, then writes a file."""
        import subprocess

        child = subprocess.Popen(["sleep", "377"])
        pidfile.write_text(str(child.pid))
        time.sleep(3)
        marker.write_text("done")
        return "ok"

    start = time.monotonic()
    result = one(Executor(loadout(spawner)), "spawner")
    assert time.monotonic() - start < 2.5
    assert result.error is not None and result.error.type == "timeout"
    assert "killed at the deadline" in result.error.message
    time.sleep(2.5)
    assert not marker.exists()
    assert not _alive(int(pidfile.read_text()))  # the grandchild died with the call


def test_isolated_calls_return_values_outputs_and_errors() -> None:
    @tool(isolation="process")
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    @tool(isolation="process")
    def updates() -> ToolOutput:
        """State update from a child."""
        return ToolOutput("noted", update={"seen": os.getpid()})

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
    assert result.content == "noted" and result.update is not None and result.update["seen"] != os.getpid()
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
