"""`python -m benchmarks cost`: what a conversation over 526 real MCP tools costs in input, per
dialect, with every tool bound, deferred behind `tool_search` (each listing), and deferred
natively (Anthropic, Responses) or cache-stable (Chat Completions).

Each case runs tooldeck's agent loop through the official SDK against the scripted provider
server on loopback, over the LiveMCP catalog (`data/schemas` of the shared folder: `--shared`
or TOOLDECK_SHARED). The conversation: two `tool_search` calls (`select:` of two tools, then of
one), three calls of the found tools (each answered by the tool), then an answer; with every tool
bound the searches are skipped.

Figures come from the request bodies the server received, counted with o200k_base:

  * tokens: what the provider puts in the model's context. Deferred definitions
    (`defer_loading: true`) are left out until loaded: an Anthropic `tool_reference` counts as
    the definition it names, a Responses namespace as its name and description (what the model
    sees of it) and a deferred top-level function as its name and description, a
    `tool_search_output` as the definitions it carries.
  * reused: the share of the previous request that this request begins with (the context in
    cache order: tools, system prompt, history), i.e. what a prompt cache can serve.
  * effective cost: each request's reused tokens at the provider's cache-read price, the rest at
    its input (Anthropic: cache-write) price, summed over the conversation; "vs bound" divides by
    the same sum with every tool bound (and the same ideal cache).

"sent KB" is the first request's body as it went over the wire: with native deferral it still
carries every deferred definition (the provider keeps them out of the context until found).

Prices (USD per million input tokens, published list prices): Anthropic Claude Sonnet 4.5 $3.00
input, $3.75 cache write (5 min), $0.30 cache read; OpenAI GPT-5 $1.25 input, $0.125 cached.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.deferral import mcp_tools
from benchmarks.dialects import find_schemas
from tooldeck import Deck, Tool, parse_config
from tooldeck._core.dialects.tokens import count_text
from tooldeck._core.sources.base import StaticSource
from tooldeck.agent.models.base import ModelSettings, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.models.prefix import unmarked
from tooldeck.errors import ConfigError
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

# (input, cache write, cache read) in USD per million tokens.
PRICES: dict[str, tuple[float, float, float]] = {
    "anthropic": (3.00, 3.75, 0.30),
    "responses": (1.25, 1.25, 0.125),
    "openai": (1.25, 1.25, 0.125),
}
DIALECTS: tuple[Provider, ...] = ("anthropic", "responses", "openai")
LISTINGS = ("toolsets", "summaries", "names", "none")
TARGETS = 3  # found tools called


@dataclass
class Case:
    dialect: str
    case: str
    tokens: list[int]
    reused: list[int]
    effective: float = 0.0  # USD
    ratio: float = 0.0  # vs bound
    results_ok: bool = False
    wire_bytes: int = 0  # the first request's JSON body as sent (deferred definitions included)

    @property
    def worst_reuse(self) -> float:
        shares = [r / p for r, p in zip(self.reused[1:], self.tokens, strict=False) if p]
        return min(shares) if shares else 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "dialect": self.dialect,
            "case": self.case,
            "requests": len(self.tokens),
            "tokens": self.tokens,
            "reused_tokens": self.reused,
            "worst_reuse": round(self.worst_reuse, 4),
            "effective_usd": round(self.effective, 6),
            "vs_bound": round(self.ratio, 4),
            "found_tools_ran": self.results_ok,
            "first_request_bytes": self.wire_bytes,
        }


def _handler(name: str) -> Any:
    def run(arguments: dict[str, Any]) -> str:
        return f"{name} ran with {json.dumps(arguments, sort_keys=True)}"

    return run


def catalog(schemas: Path) -> list[Tool]:
    entries = json.loads(schemas.read_text(encoding="utf-8"))
    return [t.with_options(handler=_handler(t.name)) for t in mcp_tools(entries)]


_SAMPLES: dict[str, Any] = {
    "string": "x",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
}


def _simple(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") in _SAMPLES
        and not ({"enum", "pattern", "format", "minimum"} & set(schema))
    )


def sample_arguments(tool: Tool) -> dict[str, Any]:
    """Arguments giving each required parameter a value of its type."""
    props = tool.parameters.get("properties") or {}
    return {name: _SAMPLES[props[name]["type"]] for name in tool.parameters.get("required") or []}


def targets(tools: list[Tool]) -> list[Tool]:
    """Three tools of three servers, spread over the catalog, whose required parameters are all
    plain strings, numbers or booleans (the scripted model fills them in)."""
    picked: list[Tool] = []
    for t in tools[:: max(1, len(tools) // 9)]:
        props = t.parameters.get("properties") or {}
        plain = all(
            _simple(props.get(n)) and props[n]["type"] not in ("array", "object")
            for n in t.parameters.get("required") or []
        )
        if plain and t.toolset not in {p.toolset for p in picked}:
            picked.append(t)
        if len(picked) == TARGETS:
            break
    return picked


def script(found: list[Tool], deferred: bool, wrapped: bool) -> list[Turn]:
    turns = []
    if deferred:
        names = [t.name for t in found]
        turns.append(Turn(calls=[("tool_search", {"query": "select:" + ",".join(names[:2])})]))
        turns.append(Turn(calls=[("tool_search", {"query": "select:" + names[2]})]))
    for t in found:
        args = sample_arguments(t)
        call: tuple[str, dict[str, Any]] = (
            ("call_tool", {"name": t.name, "arguments": args}) if wrapped else (t.name, args)
        )
        turns.append(Turn(calls=[call]))
    return [*turns, Turn("done: the three tools ran.")]


def run_case(tools: list[Tool], dialect: Provider, home: Path, **tool_search: Any) -> list[Recorded]:
    found = targets(tools)
    deferred = bool(tool_search.get("enabled"))
    wrapped = deferred and dialect == "openai" and tool_search.get("native") == "auto"
    data = {"home": str(home), "plugins": {"enabled": False}, "tool_search": tool_search}
    deck = Deck(
        parse_config(data, env={}), sources=[StaticSource(tools, name="livemcp", kind="mcp")], builtins=False
    )
    with ScriptedServer(script(found, deferred, wrapped)) as server:
        settings = ModelSettings(
            provider=dialect, model="scripted-model", base_url=server.openai_url, max_retries=0
        )
        agent = deck.agent(make_model(settings), store=False)

        async def main() -> None:
            try:
                await agent.run(agent.new_conversation(), "run the three tools")
            finally:
                await agent.aclose()

        asyncio.run(main())
        return list(server.requests)


# -- what the provider puts in context -----------------------------------------------------------


def _segments_anthropic(body: dict[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    defs = {t.get("name"): {k: v for k, v in t.items() if k != "defer_loading"} for t in tools}
    out = [json.dumps(unmarked(t)) for t in tools if not t.get("defer_loading")]
    out.append(json.dumps(unmarked(body.get("system"))))
    for m in body.get("messages") or []:
        for b in m["content"]:
            inner = b.get("content") if b.get("type") == "tool_result" else None
            if isinstance(inner, list) and any(r.get("type") == "tool_reference" for r in inner):
                b = {**b, "content": [defs.get(r.get("tool_name"), r) for r in inner]}
            out.append(json.dumps(unmarked(b)))
    return out


def _segments_responses(body: dict[str, Any]) -> list[str]:
    out = []
    for t in body.get("tools") or []:
        if t.get("type") == "namespace":
            # The model sees a namespace's name and description, and the members not deferred.
            seen = {"name": t["name"], "description": t["description"]}
            loaded = [f for f in t.get("tools") or [] if not f.get("defer_loading")]
            out.append(json.dumps({**seen, "tools": loaded} if loaded else seen))
        elif t.get("defer_loading"):
            out.append(json.dumps({"name": t.get("name"), "description": t.get("description")}))
        else:
            out.append(json.dumps(t))
    out.append(json.dumps(body.get("instructions")))
    out += [json.dumps(i) for i in body.get("input") or []]
    return out


def _segments_chat(body: dict[str, Any]) -> list[str]:
    return [json.dumps(t) for t in body.get("tools") or []] + [
        json.dumps(m) for m in body.get("messages") or []
    ]


SEGMENTS = {"anthropic": _segments_anthropic, "responses": _segments_responses, "chat": _segments_chat}


@functools.cache
def _tokens(text: str) -> int:
    return count_text(text)


def reused_tokens(before: list[str], after: list[str]) -> int:
    """Tokens of `before` that `after` begins with (whole segments, then the common start of the
    first one that differs)."""
    total = 0
    for old, new in zip(before, after, strict=False):
        if old == new:
            total += _tokens(old)
            continue
        n = 0
        while n < min(len(old), len(new)) and old[n] == new[n]:
            n += 1
        return total + (_tokens(old[:n]) if n else 0)
    return total


def measure(dialect: str, name: str, requests: list[Recorded]) -> Case:
    segments = [SEGMENTS[r.kind](r.body) for r in requests]
    tokens = [sum(_tokens(s) for s in seg) for seg in segments]
    reused = [0] + [reused_tokens(a, b) for a, b in itertools.pairwise(segments)]
    _base, write, read = PRICES[dialect]
    effective = sum((t - r) * write + r * read for t, r in zip(tokens, reused, strict=True)) / 1e6
    ran = sum(" ran with " in content for _, content in requests[-1].tool_results()) if requests else 0
    wire = len(json.dumps(requests[0].body)) if requests else 0
    return Case(dialect, name, tokens, reused, effective, results_ok=ran == TARGETS, wire_bytes=wire)


def run_cost_bench(schemas: Path, limit: int | None = None) -> list[Case]:
    tools = catalog(schemas)[:limit]
    cases: list[Case] = []
    with tempfile.TemporaryDirectory(prefix="tooldeck-bench-cost-") as home:
        for dialect in DIALECTS:
            bound = measure(dialect, "all bound", run_case(tools, dialect, Path(home)))
            rows = [bound]
            for listing in LISTINGS:
                recorded = run_case(tools, dialect, Path(home), enabled=True, native="off", listing=listing)
                rows.append(measure(dialect, f"deferred, {listing}", recorded))
            native = run_case(tools, dialect, Path(home), enabled=True, native="auto")
            rows.append(measure(dialect, "native" if dialect != "openai" else "cache-stable", native))
            for row in rows:
                row.ratio = row.effective / bound.effective if bound.effective else 0.0
            cases += rows
    return cases


def format_table(cases: list[Case], tools: int) -> str:
    lines = [
        f"Input of one conversation over {tools} MCP tools (2 searches, 3 calls, an answer), o200k tokens",
        f"{'dialect':<10} {'case':<20} {'requests':>8} {'first':>8} {'total':>9} {'worst reuse':>12} {'effective $':>12} {'vs bound':>9} {'ran':>4} {'sent KB':>8}",
    ]
    for c in cases:
        lines.append(
            f"{c.dialect:<10} {c.case:<20} {len(c.tokens):>8} {c.tokens[0]:>8} {sum(c.tokens):>9} "
            f"{c.worst_reuse:>11.1%} {c.effective:>12.4f} {c.ratio:>9.3f} {'yes' if c.results_ok else 'NO':>4} {c.wire_bytes / 1000:>8.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks cost [--schemas FILE] [--shared DIR] [--json]`."""
    import argparse
    import os

    ap = argparse.ArgumentParser(prog="python -m benchmarks cost", description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemas", help="the LiveMCP schema file (default: data/schemas of the shared folder)")
    ap.add_argument("--shared", help="the shared benchmark folder (default: $TOOLDECK_SHARED)")
    ap.add_argument("--limit", type=int, help="use only the first N tools of the catalog (a quick run)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.shared:
        os.environ["TOOLDECK_SHARED"] = args.shared
    try:
        schemas = find_schemas(args.schemas)
    except ConfigError as exc:
        print(f"python -m benchmarks cost: {exc}", file=sys.stderr)
        return 2
    cases = run_cost_bench(schemas, args.limit)
    tools = len(catalog(schemas)[: args.limit])
    if args.json:
        print(json.dumps({"tools": tools, "cases": [c.to_json() for c in cases]}, indent=2))
    else:
        print(format_table(cases, tools))
    return 0
