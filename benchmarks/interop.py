"""`python -m benchmarks interop`: per-call overhead of each interop adapter vs the framework's own tool.

One function, `shout(text, times=1)`, is a tool of each framework and of tooldeck. For each
framework, the same call (`{"text": "hi", "times": "2"}`: one argument to coerce) is made the
framework's way, in the same process, in turn:

  * out (tooldeck's loadout handed to the framework): the framework's own tool of the function vs
    the adapter's tool of a deck holding the same function: LangChain `ainvoke`; pydantic-ai
    toolset `call_tool` after the arguments validator (what its tool manager does for each
    call); OpenAI Agents `on_invoke_tool` with the model's JSON text;
  * in (the framework's tool brought into a deck): the framework's own call as above vs
    `deck.call` of that very tool object (`Deck(tools=[framework_tool])`).

The adapter's calls go through tooldeck's whole execution path (parse, validate, policy, run on
a worker thread under a deadline, shape results); the framework's own call is the floor. Each
round makes `--calls` sequential calls of each contender after `--warmup` unmeasured ones and
keeps the median; the table shows the median over rounds, the ratio and the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

ARGS: dict[str, Any] = {"text": "hi", "times": "2"}
EXPECTED = "HI HI"
Call = Callable[[], Awaitable[str]]


def shout(text: str, times: int = 1) -> str:
    """Upper-case a text, some times over.

    Args:
        text: The text.
        times: How many times.
    """
    return " ".join([text.upper()] * times)


def tooldeck_deck(*tools: object) -> Any:
    from tooldeck import Config, Deck, tool

    own = tool(toolset="bench")(shout)
    return Deck(Config(platform_toolsets={"cli": ["bench", "default"]}), tools=tools or [own], builtins=False)


def via_deck(tool_object: object) -> Call:
    deck = tooldeck_deck(tool_object)

    async def call() -> str:
        result = await deck.call("shout", ARGS)
        return str(result.content)

    return call


def langchain_calls() -> dict[str, Call]:
    from langchain_core.tools import StructuredTool

    from tooldeck.interop import langchain_tools

    native = StructuredTool.from_function(shout)
    [exported] = langchain_tools(tooldeck_deck())

    async def own() -> str:
        return str(await native.ainvoke(ARGS))

    async def adapter() -> str:
        return str(await exported.ainvoke(ARGS))

    return {"own": own, "out": adapter, "in": via_deck(native)}


def pydantic_ai_calls() -> dict[str, Call]:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    from tooldeck.interop import pydantic_ai_toolset

    ctx: RunContext[None] = RunContext(deps=None, model=TestModel(), usage=RunUsage(), run_id="bench")
    native_tool = Tool(shout)
    native = FunctionToolset([native_tool])
    exported = pydantic_ai_toolset(tooldeck_deck())
    found: dict[int, Any] = {}

    async def tools_of(toolset: Any) -> Any:
        if id(toolset) not in found:
            found[id(toolset)] = (await toolset.get_tools(ctx))["shout"]
        return found[id(toolset)]

    def caller(toolset: Any) -> Call:
        async def call() -> str:
            tool = await tools_of(toolset)
            args = tool.args_validator.validate_python(dict(ARGS))
            return str(await toolset.call_tool("shout", args, ctx, tool))

        return call

    return {"own": caller(native), "out": caller(exported), "in": via_deck(native_tool)}


def openai_agents_calls() -> dict[str, Call]:
    from agents import function_tool
    from agents.tool_context import ToolContext

    from tooldeck.interop import openai_agents_tools

    native = function_tool(shout)
    [exported] = openai_agents_tools(tooldeck_deck())
    text = json.dumps(ARGS)

    def caller(fn_tool: Any) -> Call:
        async def call() -> str:
            ctx: ToolContext[None] = ToolContext(
                None, tool_name="shout", tool_call_id="c1", tool_arguments=text
            )
            return str(await fn_tool.on_invoke_tool(ctx, text))

        return call

    return {"own": caller(native), "out": caller(exported), "in": via_deck(native)}


FRAMEWORKS: dict[str, Callable[[], dict[str, Call]]] = {
    "langchain": langchain_calls,
    "pydantic-ai": pydantic_ai_calls,
    "openai-agents": openai_agents_calls,
}


async def median_us(call: Call, calls: int, warmup: int) -> float:
    for _ in range(warmup):
        got = await call()
        if got != EXPECTED:
            raise RuntimeError(f"a benchmark call answered {got!r}, not {EXPECTED!r}")
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        await call()
        times.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(times)


async def measure(rounds: int, calls: int, warmup: int) -> dict[str, dict[str, list[float]]]:
    contenders = {name: build() for name, build in FRAMEWORKS.items()}
    samples: dict[str, dict[str, list[float]]] = {n: {k: [] for k in c} for n, c in contenders.items()}
    for index in range(rounds):
        for name, calls_of in contenders.items():
            order = list(calls_of) if index % 2 == 0 else list(reversed(calls_of))  # who goes first
            for kind in order:
                samples[name][kind].append(await median_us(calls_of[kind], calls, warmup))
    return samples


def report_of(samples: dict[str, dict[str, list[float]]], rounds: int, calls: int) -> dict[str, Any]:
    median = {n: {k: round(statistics.median(v), 1) for k, v in s.items()} for n, s in samples.items()}
    return {
        "rounds": rounds,
        "calls": calls,
        "samples": samples,
        "median_us": median,
        "overhead_us": {n: {k: round(m[k] - m["own"], 1) for k in ("out", "in")} for n, m in median.items()},
        "ratio": {n: {k: round(m[k] / m["own"], 2) for k in ("out", "in")} for n, m in median.items()},
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        f"one call of the same function, {report['calls']} calls each x {report['rounds']} rounds (median us)",
        f"  {'framework':<14} {'own tool':>10} {'out: adapter':>13} {'ratio':>7} {'+us':>8}"
        f" {'in: deck.call':>14} {'ratio':>7} {'+us':>8}",
    ]
    for name, m in report["median_us"].items():
        ratio, extra = report["ratio"][name], report["overhead_us"][name]
        lines.append(
            f"  {name:<14} {m['own']:>10.1f} {m['out']:>13.1f} {ratio['out']:>6.2f}x {extra['out']:>+8.1f}"
            f" {m['in']:>14.1f} {ratio['in']:>6.2f}x {extra['in']:>+8.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks interop", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    from agents import set_tracing_disabled

    set_tracing_disabled(True)  # the SDK's trace exporter would post to the vendor's servers
    samples = asyncio.run(measure(args.rounds, args.calls, args.warmup))
    report = report_of(samples, args.rounds, args.calls)
    print(json.dumps(report, indent=2) if args.as_json else table(report))
    return 0
