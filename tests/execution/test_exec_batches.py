"""X5: batches with real sleeps and threads - concurrency, order, barriers, resource keys, limits,
cancellation, and exactly one result per call id under 1,000 mixed calls."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from typing import Any

from tooldeck import Resource, Tool, tool
from tooldeck._core.execution.events import CollectingSink
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.runner import CancelToken
from tooldeck._core.execution.types import ToolCall

from .helpers import call, loadout, run

# How long a handler waits for the calls it must meet: generous, since only a broken executor
# (one running the calls one after another) makes it wait that long.
MEET_S = 120.0


class Timeline:
    """Records (start, end) per call id from inside the handlers, and the peak concurrency.

    A call can wait until other calls are running (`meet`, or `crowd` calls at once): calls that
    must overlap are made to, rather than hoped to on a machine that may start threads late."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.spans: dict[str, tuple[float, float]] = {}
        self.entered: set[str] = set()
        self.active = 0
        self.peak = 0

    def enter(self, key: str = "") -> float:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.entered.add(key)
            self.lock.notify_all()
        return time.monotonic()

    def meet(self, keys: list[str], crowd: int = 0) -> None:
        with self.lock:
            self.lock.wait_for(lambda: self.entered.issuperset(keys) and self.active >= crowd, timeout=MEET_S)

    def leave(self, key: str, start: float) -> None:
        with self.lock:
            self.active -= 1
            self.spans[key] = (start, time.monotonic())

    def overlap(self, a: str, b: str) -> bool:
        (s1, e1), (s2, e2) = self.spans[a], self.spans[b]
        return s1 < e2 and s2 < e1


def sleeper(name: str, timeline: Timeline, **options: Any) -> Tool:
    def handler(args: dict[str, Any]) -> str:
        start = timeline.enter(args["key"])
        timeline.meet(args.get("meet", []), args.get("crowd", 0))
        time.sleep(args.get("s", 0.2))
        timeline.leave(args["key"], start)
        return f"done {args['key']}"

    schema = {
        "type": "object",
        "properties": {
            "key": {"type": "string"},
            "s": {"type": "number"},
            "path": {"type": "string"},
            "meet": {"type": "array", "items": {"type": "string"}},
            "crowd": {"type": "integer"},
        },
    }
    return Tool(name=name, description="d", parameters=schema, handler=handler, **options)


def test_independent_calls_run_concurrently_and_return_in_model_order() -> None:
    tl = Timeline()
    t = sleeper("nap", tl)
    # All eight wait until all eight run (only concurrent calls can), then finish in reverse order.
    calls = [call("nap", {"key": f"k{i}", "s": 0.2 - i * 0.02, "crowd": 8}, f"c{i}") for i in range(8)]
    results = run(Executor(loadout(t)), calls)
    assert [r.call_id for r in results] == [f"c{i}" for i in range(8)]
    assert [r.content for r in results] == [f"done k{i}" for i in range(8)]
    assert tl.peak == 8
    assert tl.spans["k7"][1] < tl.spans["k0"][1]  # they finished out of order


def test_max_concurrency_is_respected() -> None:
    tl = Timeline()
    t = sleeper("nap", tl)
    ex = Executor(loadout(t, execution={"max_concurrency": 3}))
    # Each call waits for three to be running: the limit lets three at a time, never more.
    results = run(ex, [call("nap", {"key": f"k{i}", "s": 0.05, "crowd": 3}, f"c{i}") for i in range(9)])
    assert all(r.ok for r in results)
    assert tl.peak == 3


def test_interactive_and_sequential_tools_are_barriers() -> None:
    tl = Timeline()
    nap = sleeper("nap", tl)
    ask = sleeper("ask", tl, interactive=True)
    seq = sleeper("seq", tl, sequential=True)
    calls = [
        call("nap", {"key": "a", "s": 0.1, "meet": ["b"]}, "1"),
        call("nap", {"key": "b", "s": 0.15, "meet": ["a"]}, "2"),
        call("ask", {"key": "q", "s": 0.05}, "3"),
        call("nap", {"key": "c", "s": 0.1}, "4"),
        call("seq", {"key": "s", "s": 0.05}, "5"),
        call("nap", {"key": "d", "s": 0.1, "meet": ["e"]}, "6"),
        call("nap", {"key": "e", "s": 0.1, "meet": ["d"]}, "7"),
    ]
    results = run(Executor(loadout(nap, ask, seq)), calls)
    assert all(r.ok for r in results)
    sp = tl.spans
    assert sp["q"][0] >= max(sp["a"][1], sp["b"][1])  # earlier calls finished first
    assert sp["c"][0] >= sp["q"][1]  # later calls waited
    assert sp["s"][0] >= sp["c"][1] and sp["d"][0] >= sp["s"][1]
    assert tl.overlap("a", "b") and tl.overlap("d", "e")  # still concurrent around the barriers


def test_calls_on_the_same_path_never_overlap(tmp_path: Any) -> None:
    tl = Timeline()
    writer = sleeper("write", tl, resource=Resource(arg="path", mode="write"))
    reader = sleeper("read", tl, resource=Resource(arg="path", mode="read"))
    calls = [
        call("write", {"key": "w1", "path": "a.txt", "s": 0.1, "meet": ["w3"]}, "1"),
        call("write", {"key": "w2", "path": "./a.txt", "s": 0.1}, "2"),  # same file, other spelling
        call("write", {"key": "w3", "path": "b.txt", "s": 0.1, "meet": ["w1"]}, "3"),
        call("read", {"key": "r1", "path": "a.txt", "s": 0.1, "meet": ["r2"]}, "4"),
        call("read", {"key": "r2", "path": "a.txt", "s": 0.1, "meet": ["r1"]}, "5"),
        call("write", {"key": "w4", "path": "a.txt", "s": 0.05}, "6"),
    ]
    results = run(Executor(loadout(writer, reader, workspace=tmp_path)), calls)
    assert all(r.ok for r in results)
    sp = tl.spans
    assert sp["w2"][0] >= sp["w1"][1]
    assert tl.overlap("w1", "w3")  # other paths run alongside
    assert sp["r1"][0] >= sp["w2"][1] and sp["r2"][0] >= sp["w2"][1]
    assert tl.overlap("r1", "r2")  # readers share
    assert sp["w4"][0] >= max(sp["r1"][1], sp["r2"][1])


def test_duplicate_ids_are_answered_once() -> None:
    tl = Timeline()
    t = sleeper("nap", tl)
    sink = CollectingSink()
    calls = [
        call("nap", {"key": "a", "s": 0}, "x"),
        call("nap", {"key": "b", "s": 0}, "x"),
        call("nap", {"key": "c", "s": 0}, "y"),
    ]
    results = run(Executor(loadout(t), events=sink), calls)
    assert [r.call_id for r in results] == ["x", "y"]
    assert results[0].content == "done a"
    assert "b" not in tl.spans
    assert "duplicate_id" in sink.kinds("x")


def test_cancel_token_cancels_running_and_waiting_calls() -> None:
    tl = Timeline()
    nap = sleeper("nap", tl)
    barrier = sleeper("bar", tl, sequential=True)
    token = CancelToken()
    calls = [
        call("nap", {"key": "quick", "s": 0.01}, "1"),
        call("nap", {"key": "slow", "s": 60}, "2"),
        call("bar", {"key": "after", "s": 0.01}, "3"),
    ]

    def cancel_once_quick_is_done_and_slow_runs() -> None:
        deadline = time.monotonic() + MEET_S
        while time.monotonic() < deadline and not ("quick" in tl.spans and "slow" in tl.entered):
            time.sleep(0.01)
        token.cancel()

    threading.Thread(target=cancel_once_quick_is_done_and_slow_runs, daemon=True).start()
    results = run(Executor(loadout(nap, barrier)), calls, cancel=token)
    assert [r.error.type if r.error else "ok" for r in results] == ["ok", "cancelled", "cancelled"]
    assert "slow" not in tl.spans  # answered while its 60 s nap still ran
    assert "after" not in tl.spans


def test_executor_cancel_stops_a_lone_inline_call_and_the_caller_carries_on() -> None:
    @tool
    async def wait_long() -> str:
        """Waits."""
        await asyncio.sleep(10)
        return "late"

    ex = Executor(loadout(wait_long))

    async def main() -> tuple[str, str]:
        task = asyncio.create_task(ex.execute([call("wait_long")]))
        await asyncio.sleep(0.1)
        ex.cancel()
        [result] = await task
        await asyncio.sleep(0.01)  # the caller's task is not left cancelled
        assert result.error is not None
        return result.error.type, result.call_id

    assert asyncio.run(main()) == ("cancelled", "id-wait_long")


def test_a_pre_cancelled_token_runs_nothing() -> None:
    tl = Timeline()
    token = CancelToken()
    token.cancel()
    results = run(Executor(loadout(sleeper("nap", tl))), [call("nap", {"key": "a"}, "1")], cancel=token)
    assert results[0].error is not None and results[0].error.type == "cancelled"
    assert tl.spans == {}


def test_exactly_one_result_per_id_under_a_thousand_mixed_calls() -> None:
    rng = random.Random(7)

    def ok(args: dict[str, Any]) -> str:
        time.sleep(args.get("s", 0))
        return "ok"

    def raises(args: dict[str, Any]) -> str:
        raise RuntimeError("boom")

    async def aok(args: dict[str, Any]) -> str:
        await asyncio.sleep(args.get("s", 0))
        return "aok"

    schema = {"type": "object", "properties": {"s": {"type": "number"}, "path": {"type": "string"}}}
    tools = [
        Tool(name="ok", description="d", parameters=schema, handler=ok, resource=Resource(arg="path")),
        Tool(name="raises", description="d", parameters=schema, handler=raises),
        Tool(name="aok", description="d", parameters=schema, handler=aok),
        Tool(name="slow", description="d", parameters=schema, handler=ok, timeout=0.05),
        Tool(name="seq", description="d", parameters=schema, handler=ok, sequential=True),
    ]
    calls: list[ToolCall] = []
    for i in range(1000):
        kind = rng.choice(["ok", "raises", "aok", "slow", "seq", "bad_json", "unknown", "bad_args", "dup"])
        cid = f"c{i}"
        if kind == "bad_json":
            calls.append(ToolCall(cid, "ok", '{"s": 0.0'))
        elif kind == "unknown":
            calls.append(ToolCall(cid, "nope", "{}"))
        elif kind == "bad_args":
            calls.append(ToolCall(cid, "ok", {"s": "soon"}))
        elif kind == "dup" and calls:
            calls.append(ToolCall(calls[-1].id, "ok", {}))
        elif kind == "slow":
            calls.append(ToolCall(cid, "slow", {"s": 0.2 if rng.random() < 0.5 else 0}))
        elif kind == "seq":
            calls.append(ToolCall(cid, "seq", {"s": 0.001}))
        else:
            calls.append(
                ToolCall(
                    cid, kind if kind != "dup" else "ok", {"s": rng.random() * 0.003, "path": f"f{i % 7}"}
                )
            )
    ex = Executor(loadout(*tools, execution={"max_concurrency": 16}))
    results = run(ex, calls)
    expected_ids = list(dict.fromkeys(c.id for c in calls))
    assert [r.call_id for r in results] == expected_ids
    assert len({r.call_id for r in results}) == len(results)
    kinds = {r.error.type if r.error else "ok" for r in results}
    assert {"ok", "tool_error", "invalid_arguments", "unknown_tool", "timeout"} <= kinds
    by_id = {c.id: c for c in reversed(calls)}  # the first call of each id is the one that ran
    for r in results:
        if by_id[r.call_id].name == "raises":
            assert r.error is not None and r.error.type == "tool_error"
