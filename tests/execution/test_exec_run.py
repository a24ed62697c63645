"""X4 and X6: running handlers (async, sync in daemon threads), timeouts, error envelopes, events."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from tooldeck import Tool, ToolContext, tool
from tooldeck._core.execution.events import CollectingSink
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolError, ToolOutput, ToolUnavailableError
from tooldeck._core.run_state import RunState, RunStateUpdate

from .helpers import call, loadout, one, run

ERROR_TYPES = {
    "invalid_arguments",
    "unknown_tool",
    "timeout",
    "tool_error",
    "denied",
    "not_promoted",
    "unavailable",
    "cancelled",
}


@tool
async def async_add(a: int, b: int) -> int:
    """Add."""
    await asyncio.sleep(0)
    return a + b


@tool
def thread_name() -> str:
    """Which thread runs me."""
    t = threading.current_thread()
    return f"{t.name} daemon={t.daemon}"


@tool(timeout=0.3)
def sleeps_forever() -> str:
    """Never returns."""
    threading.Event().wait()
    return "unreachable"


@tool(timeout=0.3)
async def async_sleeps_forever() -> str:
    """Never returns."""
    await asyncio.Event().wait()
    return "unreachable"


@tool
def boom(secret: str = "s3cret") -> str:
    """Raises."""
    raise ValueError(f"bad value near {secret[:1]}")


@tool
def own_timeout() -> str:
    """A socket-style TimeoutError of the tool itself."""
    raise TimeoutError("upstream timed out")


def test_async_handlers_are_awaited_on_the_loop() -> None:
    assert one(Executor(loadout(async_add)), "async_add", {"a": "2", "b": 3}).content == "5"


def test_sync_handlers_run_in_daemon_worker_threads() -> None:
    content = one(Executor(loadout(thread_name)), "thread_name").content
    assert "daemon=True" in content
    assert "MainThread" not in content


@pytest.mark.parametrize("hang", [sleeps_forever, async_sleeps_forever])
def test_a_handler_that_never_returns_times_out_in_time(hang: Tool) -> None:
    # The handler never returns: a result at all means the caller was freed at the deadline.
    result = one(Executor(loadout(hang)), hang.name)
    assert result.error is not None and result.error.type == "timeout"
    assert "0.3 s" in result.error.message and not result.error.retryable  # a repeat may not be safe
    said = "cancelled" if hang.is_async else "abandoned at the deadline: its thread could not be stopped"
    assert said in result.error.message
    # A tool that says a repeat is safe is offered a retry.
    safe = hang.with_options(idempotent=True)
    error = one(Executor(loadout(safe)), safe.name).error
    assert error is not None and error.retryable


def test_default_timeout_applies_when_the_tool_sets_none() -> None:
    release, finished = threading.Event(), threading.Event()

    @tool
    def slow() -> str:
        """Slow."""
        release.wait(60)
        finished.set()
        return "late"

    try:
        result = one(Executor(loadout(slow, execution={"default_timeout_s": 0.2})), "slow")
        assert result.error is not None and result.error.type == "timeout" and "0.2 s" in result.error.message
        assert not finished.is_set()  # the caller was freed while the handler still ran
    finally:
        release.set()


def test_timeout_cap_bounds_a_tools_own_longer_timeout() -> None:
    # The handler never returns, and its own timeout is 600 s (past the test's): only the cap can
    # free the caller, and the message names the capped timeout.
    long = sleeps_forever.with_options(timeout=600)
    result = one(Executor(loadout(long, execution={"max_timeout_s": 0.2})), long.name)
    assert result.error is not None and result.error.type == "timeout" and "0.2 s" in result.error.message


def test_the_cancel_event_of_a_timed_out_sync_call_is_set() -> None:
    seen: list[threading.Event] = []
    stopped = threading.Event()

    @tool(timeout=0.2)
    def polite(context: ToolContext) -> str:
        """Polls its cancel flag."""
        seen.append(context.cancelled)
        while not context.cancelled.wait(0.01):
            pass
        stopped.set()
        return "stopped"

    assert one(Executor(loadout(polite)), "polite").error is not None
    assert stopped.wait(30)  # the handler saw its cancel flag (a loaded machine may be slow to run it)


def test_exceptions_become_tool_errors_without_a_traceback_for_the_model() -> None:
    sink = CollectingSink()
    result = one(Executor(loadout(boom), events=sink), "boom")
    assert result.error is not None and result.error.type == "tool_error"
    assert "ValueError: bad value near s" in result.error.message
    assert "Traceback" not in result.content and "File " not in result.content
    finished = [e for e in sink.of("id-boom") if e.kind == "finished"]
    assert len(finished) == 1 and finished[0].traceback is not None
    assert "Traceback" in finished[0].traceback and "raise ValueError" in finished[0].traceback


def test_a_tools_own_timeout_error_is_a_tool_error_not_ours() -> None:
    result = one(Executor(loadout(own_timeout)), "own_timeout")
    assert result.error is not None and result.error.type == "tool_error"
    assert "upstream timed out" in result.error.message


def test_tool_failure_controls_the_envelope() -> None:
    @tool
    def picky() -> str:
        """Fails cleanly."""
        raise ToolError("the index is rebuilding, try in a minute", retryable=True)

    @tool
    def gone() -> str:
        """Dependency missing."""
        raise ToolUnavailableError("server github is down")

    r1 = one(Executor(loadout(picky)), "picky")
    assert r1.error is not None and (r1.error.type, r1.error.retryable) == ("tool_error", True)
    assert r1.error.message == "the index is rebuilding, try in a minute"
    r2 = one(Executor(loadout(gone)), "gone")
    assert r2.error is not None and r2.error.type == "unavailable"


def test_the_envelope_has_exactly_the_documented_shape() -> None:
    result = one(Executor(loadout(boom)), "boom")
    envelope = json.loads(result.content)
    assert set(envelope) == {"error"}
    assert set(envelope["error"]) == {"type", "message", "tool", "retryable"}
    assert envelope["error"]["type"] in ERROR_TYPES
    assert envelope["error"]["tool"] == "boom"
    assert isinstance(envelope["error"]["retryable"], bool)


def test_events_started_validated_finished_with_duration_and_outcome() -> None:
    sink = CollectingSink()
    ex = Executor(loadout(async_add, boom), events=sink)
    one(ex, "async_add", {"a": 1, "b": 2})
    one(ex, "boom")
    assert sink.kinds("id-async_add") == ["started", "validated", "finished"]
    done = sink.of("id-async_add")[-1]
    assert done.outcome == "ok" and done.duration_s is not None and done.duration_s >= 0
    assert sink.of("id-boom")[-1].outcome == "tool_error"


def test_tool_output_carries_updates_and_interrupts() -> None:
    @tool
    def present(paths: list[str]) -> ToolOutput:
        """State update."""
        return ToolOutput(f"presented {len(paths)}", update={"artifacts": paths})

    @tool
    def clarify(question: str) -> ToolOutput:
        """Control flow."""
        return ToolOutput("asked", interrupt={"question": question})

    ex = Executor(loadout(present, clarify))
    r1 = one(ex, "present", {"paths": ["a.txt"]})
    assert (r1.content, r1.update) == ("presented 1", RunStateUpdate(artifacts=("a.txt",)))
    r2 = one(ex, "clarify", {"question": "which one?"})
    assert r2.interrupt == {"question": "which one?"}


def test_handlers_may_take_the_context_with_run_state() -> None:
    @tool
    def remember(note: str, ctx: ToolContext) -> str:
        """Writes to the run state."""
        ctx.state.artifacts.append(note)
        return f"{ctx.call_id} {ctx.tool_name} {ctx.session_id}"

    state = RunState()
    ex = Executor(loadout(remember), session_id="s1")
    [r] = run(ex, [call("remember", {"note": "x"}, "c9")], state=state)
    assert r.content == "c9 remember s1"
    assert state.artifacts == ["x"]


def test_non_string_results_are_json() -> None:
    t = Tool(name="d", description="d", parameters={"type": "object"}, handler=lambda a: {"k": [1, None]})
    assert json.loads(one(Executor(loadout(t)), "d").content) == {"k": [1, None]}


def test_execute_sync_works_inside_a_running_loop() -> None:
    ex = Executor(loadout(async_add))

    async def main() -> str:
        return ex.execute_sync([call("async_add", {"a": 1, "b": 1})])[0].content

    assert asyncio.run(main()) == "2"


def test_a_handler_that_swallows_cancellation_leaves_the_callers_task_clean() -> None:
    @tool(timeout=0.05)
    async def stubborn() -> str:
        """Ignores the first cancellation."""
        try:
            await asyncio.sleep(60)  # only the timeout ends it early
        except asyncio.CancelledError:
            return "finished anyway"
        return "slept"

    async def main() -> tuple[str, int]:
        [result] = await Executor(loadout(stubborn)).execute([call("stubborn")])
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0.01)  # no stray cancellation reaches the caller
        return result.content, task.cancelling()

    assert asyncio.run(main()) == ("finished anyway", 0)


def test_a_tool_calling_sys_exit_does_not_end_the_run() -> None:
    import sys

    @tool
    def quitter() -> str:
        """Exits."""
        sys.exit(3)

    @tool
    async def aquitter() -> str:
        """Exits too."""
        sys.exit(4)

    ex = Executor(loadout(quitter, aquitter))
    for name, code in (("quitter", "3"), ("aquitter", "4")):
        result = one(ex, name)
        assert result.error is not None and result.error.type == "tool_error"
        assert f"SystemExit: {code}" in result.error.message


def test_tracebacks_go_to_the_log(caplog: pytest.LogCaptureFixture) -> None:
    from tooldeck._core.execution.events import LoggingSink

    with caplog.at_level("WARNING", logger="tooldeck.execution"):
        one(Executor(loadout(boom)), "boom")  # no event sink: straight to the log
        one(Executor(loadout(boom), events=LoggingSink()), "boom")
    traces = [r.getMessage() for r in caplog.records if "raise ValueError" in r.getMessage()]
    assert len(traces) == 2


def test_a_handler_calls_another_tool_through_its_caller() -> None:
    from tooldeck._core.execution.nested import ToolCaller
    from tooldeck._core.workspace import Workspace

    @tool
    def twice(a: int, context: ToolContext) -> str:
        """Adds through the loadout."""
        caller = context.get(ToolCaller)
        assert caller is not None and context.get(ToolCaller) is caller  # one caller per call
        assert context.get(Workspace) is not None and ToolCaller in context.services
        assert len(context.services) == len(list(context.services))
        return caller.call("async_add", {"a": a, "b": a}).content

    [r] = run(Executor(loadout(twice, async_add)), [call("twice", {"a": 4}, "c1")])
    assert r.content == "8"


def test_the_lazy_cancel_event_wakes_a_waiter_in_another_thread() -> None:
    from tooldeck._core.execution.runner import LazyEvent

    event = LazyEvent()
    assert not event.is_set()
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(event.wait(60)))
    waiter.start()
    time.sleep(0.05)  # most often the waiter is waiting by now; set first, it must see it too
    event.set()
    waiter.join(60)
    assert woke == [True] and event.is_set()
    event.clear()
    assert not event.wait(0.01)
