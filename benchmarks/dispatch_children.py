"""The measured processes of `tooldeck bench dispatch`, one per contender, as script text.

Every child follows the same protocol: argv[1] is JSON `{"n": calls, "warmup": calls}`; it times
`n` trivial calls of a sync tool and of an async tool (`add(a, b)`, arguments as the JSON text a
model sends) through the contender's whole call path, then a batch of 8 calls that each sleep
200 ms (5 times, the median is kept: a sleeping thread alone overshoots by a few ms on a busy
machine), and prints one JSON object: `sync_us`, `async_us` (mean per call), `batch_ms` (wall
time), `check` (the result text of one call, so a broken path cannot look fast). Hermes has no
batch executor outside its agent class, so its batch goes through a real `AIAgent` (no model
call) and `_execute_tool_calls_concurrent`, the method its loop uses for parallel tool calls.

They are kept as text because the peers' packages live in their own venvs (run with their own
python), where tooldeck is not importable, and tooldeck's venv cannot import theirs.
"""

from __future__ import annotations

TOOLDECK = r"""
import asyncio, json, sys, time
from tooldeck import tool
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall

opts = json.loads(sys.argv[1])

@tool
def add(a: int, b: int) -> int:
    '''Add two numbers.'''
    return a + b

@tool
async def aadd(a: int, b: int) -> int:
    '''Add two numbers.'''
    return a + b

@tool
def nap(seconds: float) -> str:
    '''Sleep.'''
    time.sleep(seconds)
    return "slept"

@tool(isolation="process")
def iadd(a: int, b: int) -> int:
    '''Add two numbers in a child process.'''
    return a + b

async def per_call(ex, name, n):
    args = '{"a": 1, "b": 2}'
    start = time.perf_counter()
    for i in range(n):
        await ex.execute([ToolCall("call_1", name, args)])
    return (time.perf_counter() - start) / n * 1e6

async def main():
    lo = Loadout("bench", (add, aadd, nap, iadd), (), (), {}, {})
    ex = Executor(lo)
    [check] = await ex.execute([ToolCall("c", "add", '{"a": 1, "b": 2}')])
    out = {"check": check.content}
    for name in ("add", "aadd"):
        await per_call(ex, name, opts["warmup"])
        out["sync_us" if name == "add" else "async_us"] = await per_call(ex, name, opts["n"])
    # A call isolated in a child process (fork per call): fewer calls, it costs milliseconds.
    await per_call(ex, "iadd", 5)
    out["isolated_us"] = await per_call(ex, "iadd", max(20, opts["n"] // 100))
    walls = []
    for rep in range(opts.get("batch_reps", 5)):
        start = time.perf_counter()
        results = await ex.execute([ToolCall(f"b{i}", "nap", '{"seconds": 0.2}') for i in range(8)])
        walls.append((time.perf_counter() - start) * 1e3)
        assert all(r.content == "slept" for r in results), [r.content for r in results]
    out["batch_ms"] = sorted(walls)[len(walls) // 2]
    # For reference: 8 new plain threads sleeping 200 ms, no framework at all.
    import threading
    floors = []
    for rep in range(opts.get("batch_reps", 5)):
        start = time.perf_counter()
        threads = [threading.Thread(target=time.sleep, args=(0.2,)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        floors.append((time.perf_counter() - start) * 1e3)
    out["floor_ms"] = sorted(floors)[len(floors) // 2]
    print(json.dumps(out))

asyncio.run(main())
"""

PYDANTIC_AI = r"""
import asyncio, json, sys, time
from pydantic_ai import RunContext
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.models.test import TestModel
from pydantic_ai.tool_manager import ToolManager
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage

opts = json.loads(sys.argv[1])

def add(a: int, b: int) -> int:
    '''Add two numbers.'''
    return a + b

async def aadd(a: int, b: int) -> int:
    '''Add two numbers.'''
    return a + b

def nap(seconds: float) -> str:
    '''Sleep.'''
    time.sleep(seconds)
    return "slept"

async def per_call(tm, name, n):
    args = '{"a": 1, "b": 2}'
    start = time.perf_counter()
    for i in range(n):
        await tm.handle_call(ToolCallPart(name, args, tool_call_id="call_1"))
    return (time.perf_counter() - start) / n * 1e6

async def main():
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    tm = await ToolManager(FunctionToolset([add, aadd, nap])).for_run_step(ctx)
    out = {"check": str(await tm.handle_call(ToolCallPart("add", '{"a": 1, "b": 2}', tool_call_id="c")))}
    for name in ("add", "aadd"):
        await per_call(tm, name, opts["warmup"])
        out["sync_us" if name == "add" else "async_us"] = await per_call(tm, name, opts["n"])
    walls = []
    for rep in range(opts.get("batch_reps", 5)):
        start = time.perf_counter()
        calls = [ToolCallPart("nap", '{"seconds": 0.2}', tool_call_id=f"b{i}") for i in range(8)]
        results = await asyncio.gather(*(tm.handle_call(c) for c in calls))
        walls.append((time.perf_counter() - start) * 1e3)
        assert all(r == "slept" for r in results), results
    out["batch_ms"] = sorted(walls)[len(walls) // 2]
    print(json.dumps(out))

asyncio.run(main())
"""

HERMES = r"""
import json, sys, time

opts = json.loads(sys.argv[1])
import model_tools
from tools.registry import registry

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}

def add(args, **kw):
    return json.dumps(args["a"] + args["b"])

async def aadd(args, **kw):
    return json.dumps(args["a"] + args["b"])

for name, fn, is_async in (("bench_add", add, False), ("bench_aadd", aadd, True)):
    registry.register(
        name=name, toolset="bench", schema={"name": name, "description": "Add two numbers.", "parameters": SCHEMA},
        handler=fn, is_async=is_async, description="Add two numbers.",
    )

def per_call(name, n):
    args = '{"a": 1, "b": 2}'
    start = time.perf_counter()
    for i in range(n):
        # What Hermes's agent does with a tool call: decode the arguments, then dispatch.
        model_tools.handle_function_call(name, json.loads(args), task_id="bench", tool_call_id="call_1")
    return (time.perf_counter() - start) / n * 1e6

out = {"check": model_tools.handle_function_call("bench_add", {"a": 1, "b": 2}, task_id="bench")}
for name in ("bench_add", "bench_aadd"):
    per_call(name, opts["warmup"])
    out["sync_us" if name == "bench_add" else "async_us"] = per_call(name, opts["n"])
# Hermes runs a batch inside its agent: a real AIAgent (no model is called) and the method its
# loop uses for parallel tool calls.
import types
from run_agent import AIAgent

def nap(args, **kw):
    time.sleep(args["seconds"])
    return json.dumps("slept")

NAP = {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}
registry.register(
    name="bench_nap", toolset="bench", schema={"name": "bench_nap", "description": "Sleep.", "parameters": NAP},
    handler=nap, description="Sleep.",
)
agent = AIAgent(
    base_url="http://127.0.0.1:9/v1", api_key="unused", model="unused", quiet_mode=True,
    enabled_toolsets=["bench"], skip_context_files=True, skip_memory=True,
)
calls = [
    types.SimpleNamespace(id=f"b{i}", type="function",
                          function=types.SimpleNamespace(name="bench_nap", arguments='{"seconds": 0.2}'))
    for i in range(8)
]
message = types.SimpleNamespace(tool_calls=calls, content=None)
walls = []
for rep in range(opts.get("batch_reps", 5)):
    messages = []
    start = time.perf_counter()
    agent._execute_tool_calls_concurrent(message, messages, "bench", 0)
    walls.append((time.perf_counter() - start) * 1e3)
    assert [m["content"] for m in messages] == ['"slept"'] * 8, messages
out["batch_ms"] = sorted(walls)[len(walls) // 2]
print(json.dumps(out))
"""
