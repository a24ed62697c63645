"""The phases of the assembly benchmark on tooldeck, through the path a user takes.

Cold: load the Deck from a config file (the validated config comes from the config cache after
the first run, as for any application that reads its tooldeck.yaml) with the discovery of the
built-in tools and plugins, register the 300 workload tools, assemble and render the first
OpenAI `tools` list. Then, in the same process:
warm repeats, a full recompute with the memos cleared (private, labelled so), an availability
flip with the public invalidation, and the output checks (names, hash, JSON bytes).

The cold-start child (`assembly_child.py`) imports tooldeck first and this module after, so the
harness cannot pre-load what tooldeck would pay for; `run_in_process` runs the same phases in
the current process (used by the test, where the cold timings mean nothing).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import assembly_workload as wl
from tooldeck._core.dialects import render_loadout
from tooldeck._core.tool import Tool
from tooldeck._deck import Deck

OpenAITools = list[dict[str, Any]]


@dataclass(frozen=True)
class Counts:
    """How many timed calls (and untimed warm-ups) each warm figure takes."""

    warm: int = 1000
    warm_warmup: int = 50
    recompute: int = 200
    recompute_warmup: int = 10


@dataclass
class ColdResult:
    deck: Deck
    doc: dict[str, Any]
    checks: wl.CheckSet
    first_list: OpenAITools
    figures: dict[str, Any]
    first_list_mono_ns: int


def ms(ns: int) -> float:
    return round(ns / 1e6, 3)


def stats_us(samples_ns: list[int]) -> dict[str, Any]:
    s = sorted(samples_ns)
    n = len(s)
    return {
        "median_us": round(statistics.median(s) / 1e3, 2),
        "p90_us": round(s[min(n - 1, int(0.9 * n))] / 1e3, 2),
        "min_us": round(s[0] / 1e3, 2),
        "n": n,
    }


def bench_config_text(doc: dict[str, Any]) -> str:
    """Platform `bench` selects `synplat`, a composite of synset_00..07 (as in workload.json)."""
    (name, includes), *_ = doc["platform"].items()
    return (
        f"platform: {wl.PLATFORM}\n"
        f"platform_toolsets: {{{wl.PLATFORM}: [{name}]}}\n"
        f"toolsets: {{{name}: {{includes: [{', '.join(includes)}]}}}}\n"
    )


def cold_phases(
    workload_path: Path, *, verify: bool, builtins: bool = True, config_dir: Path | None = None
) -> ColdResult:
    """Build, discover, register, first assembly; each phase timed with CLOCK_MONOTONIC.

    The config file is written to `config_dir` (default: the working directory) when it is not
    there yet. `builtins=False` skips the discovery of tooldeck's built-in tools (a diagnostic
    variant).
    """
    mono = time.monotonic_ns
    t0 = mono()
    doc = wl.read_workload(workload_path, verify=verify)
    checks = wl.make_checks(doc["checks"])
    specs = wl.tool_specs(doc, checks)
    t1 = mono()
    config_path = (config_dir or Path.cwd()) / "tooldeck-bench.yaml"
    text = bench_config_text(doc)
    if not config_path.exists() or config_path.read_text(encoding="utf-8") != text:
        config_path.write_text(text, encoding="utf-8")
    t2 = mono()
    deck = Deck.load(config_path, builtins=builtins)
    builtin = len(deck.registry)
    t3 = mono()
    tools = [
        Tool(
            name=s.name,
            description=s.description,
            parameters=s.parameters,
            handler=s.handler,
            toolset=s.toolset,
            check=s.check,
        )
        for s in specs
    ]
    deck.registry.register_many(tools)
    t4 = mono()
    before = checks.stats.mark()
    first = render_loadout(deck.loadout(), "openai")
    t5 = mono()
    probes = checks.stats.delta(before)
    figures = {
        "build_workload_ms": ms(t1 - t0),
        "config_ms": ms(t2 - t1),
        "discovery_ms": ms(t3 - t2),
        "register_300_ms": ms(t4 - t3),
        "first_assembly_ms": ms(t5 - t4),
        "first_assembly_probe_calls": probes["probe_calls"],
        "first_assembly_probe_ms": probes["probe_ms"],
        "first_assembly_probe_longest_ms": probes["probe_max_ms"],
        # Checks run concurrently: the framework's own cost is the wall time past the longest one.
        "first_assembly_minus_longest_probe_ms": round(ms(t5 - t4) - probes["probe_max_ms"], 3),
        "builtin_tools_before_workload": builtin,
        "synthetic_tools_registered": sum(1 for t in deck.registry.snapshot() if t.name.startswith("syn_")),
    }
    return ColdResult(deck, doc, checks, first, figures, t5)


def output_figures(cold: ColdResult) -> dict[str, Any]:
    want = wl.expected_exposed(cold.doc, cold.checks.state)
    got = [d["function"]["name"] for d in cold.first_list]
    registered = {e["schema"]["name"]: e["schema"] for e in cold.doc["tools"]}
    identical = sum(1 for d in cold.first_list if d["function"] == registered.get(d["function"]["name"]))
    return {
        "exposed": len(got),
        "expected_exposed": len(want),
        "exposed_matches_expected": got == want,
        "order": "alphabetical" if got == sorted(got) else "not_alphabetical",
        **wl.json_sizes(cold.first_list),
        "schemas_identical_to_registered": identical,
        "exposed_names_sha256_16": wl.names_sha16(got),
        "exposed_names_sha_ok": wl.names_sha16(got) == wl.EXPOSED_SHA16,
    }


def _timed(fn: Callable[[], object], n: int, warmup: int, before: Callable[[], None] | None = None) -> Any:
    pc = time.perf_counter_ns
    for _ in range(warmup):
        if before:
            before()
        fn()
    samples = []
    result: object = None
    for _ in range(n):
        if before:
            before()
        t = pc()
        result = fn()
        samples.append(pc() - t)
    return samples, result


def warm_figures(cold: ColdResult, counts: Counts) -> dict[str, Any]:
    deck, stats = cold.deck, cold.checks.stats
    loadout = deck.loadout

    def full() -> OpenAITools:
        return render_loadout(loadout(), "openai")

    def clear_memos() -> None:  # PRIVATE: tooldeck has no API to drop its memos (nothing needs it)
        deck.assembler._selections.clear()
        deck.assembler._loadouts.clear()

    out: dict[str, Any] = {}
    before = stats.mark()
    samples, result = _timed(full, counts.warm, counts.warm_warmup)
    out["memo_hit"] = {**stats_us(samples), **stats.delta(before), "exposed": len(result)}
    before = stats.mark()
    samples, result = _timed(loadout, counts.warm, counts.warm_warmup)
    out["assemble_only"] = {**stats_us(samples), **stats.delta(before), "exposed": len(result.exposed)}
    before = stats.mark()
    samples, result = _timed(full, counts.recompute, counts.recompute_warmup, before=clear_memos)
    out["recompute_memo_cleared_private"] = {
        **stats_us(samples),
        **stats.delta(before),
        "exposed": len(result),
    }
    return out


def availability_figures(cold: ColdResult) -> dict[str, Any]:
    """Flip chk_03 to True, invalidate through the public API, check the next list is fresh."""
    deck, checks = cold.deck, cold.checks
    stats, assembler = checks.stats, deck.assembler
    pc = time.perf_counter_ns

    def assemble(expected: list[str]) -> tuple[OpenAITools, dict[str, Any]]:
        before = stats.mark()
        t = pc()
        tools = render_loadout(deck.loadout(), "openai")
        dt = pc() - t
        names = [d["function"]["name"] for d in tools]
        return tools, {"ms": ms(dt), "exposed": len(names), "fresh": names == expected, **stats.delta(before)}

    base = wl.expected_exposed(cold.doc, checks.state)
    out: dict[str, Any] = {
        "flipped_check": wl.FLIP_CHECK,
        "seconds_since_first_probe": round((time.monotonic_ns() - cold.first_list_mono_ns) / 1e9, 3),
    }
    checks.state[wl.FLIP_CHECK] = True
    flipped = wl.expected_exposed(cold.doc, checks.state)
    out["new_tools"] = sorted(set(flipped) - set(base))
    assembler.invalidate()  # public: forget every cached check answer
    flip_list, out["A_after_invalidate"] = assemble(flipped)
    out["A_after_invalidate"]["new_tools_present"] = sum(
        1 for d in flip_list if d["function"]["name"] in out["new_tools"]
    )
    out["A_after_invalidate"]["names_sha256_16"] = wl.names_sha16([d["function"]["name"] for d in flip_list])
    _, out["B_memo_hit_after_A"] = assemble(flipped)
    # Targeted invalidation: only the flipped check runs again (public checker.invalidate(key)).
    key = ("check", checks.checks[wl.FLIP_CHECK])
    checks.state[wl.FLIP_CHECK] = False
    assembler.checker.invalidate(key)
    _, out["C_flip_back_invalidate_one_key"] = assemble(base)
    checks.state[wl.FLIP_CHECK] = True
    assembler.checker.invalidate(key)
    _, out["D_flip_again_invalidate_one_key"] = assemble(flipped)
    out["after_flip_output"] = {"exposed": len(flip_list), **wl.json_sizes(flip_list)}
    return out


def measure(cold: ColdResult, counts: Counts) -> dict[str, Any]:
    """Everything after the first list, in the order of the Hermes script."""
    out: dict[str, Any] = {"output": output_figures(cold)}
    out["warm"] = warm_figures(cold, counts)
    out["availability_change"] = availability_figures(cold)
    out["tooldeck_probe_calls"] = cold.deck.assembler.checker.probe_calls
    out["probe_calls_per_check_total"] = list(cold.checks.stats.per_check.values())
    return out


def run_in_process(shared: str | Path | None = None, counts: Counts | None = None) -> dict[str, Any]:
    """All phases in this process (cold figures include nothing of import or start-up)."""
    import tempfile

    path = wl.find_shared(shared) / wl.HERMES_DIR / "workload.json"
    cold = cold_phases(path, verify=True, config_dir=Path(tempfile.mkdtemp(prefix="tooldeck-bench-")))
    return {
        "cold": cold.figures,
        "workload_sha256": wl.fingerprint(cold.doc),
        **measure(cold, counts or Counts()),
    }
