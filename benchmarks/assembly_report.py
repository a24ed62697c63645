"""The table and verdicts of `tooldeck bench assembly`, from the raw per-process figures.

Every figure is the median over the fresh processes of that process's value (for per-call
figures: the median of its 1000 single-call timings). The ratio is Hermes / tooldeck, so
`12.3x` means tooldeck took a twelfth of Hermes's time.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass
from typing import Any

from benchmarks import assembly_workload as wl

COLD_TARGET = 5.0  # cold at least 5x faster than Hermes
REPEAT_LIMIT_US = 100.0  # unchanged-availability repeat assembly


@dataclass(frozen=True)
class Row:
    label: str
    tooldeck: str | None  # dotted key path into a tooldeck run
    hermes: str | None  # ... into a Hermes run
    timing: bool = True  # timings get a ratio; counts and flags are shown side by side


ROWS: tuple[Row, ...] = (
    Row("cold: interpreter start (outside) ms", "cold.interp_start_ms", "cold.interp_start_ms"),
    Row("cold: import ms", "cold.import_tooldeck_ms", "cold.import_hermes_ms"),
    Row("cold:   pydantic imported by the first list", "cold.pydantic_imported_by_first_list", None, False),
    Row("cold: config + discovery ms (Hermes: in import)", "cold.discovery_ms", None),
    Row("cold: build workload ms", "cold.build_workload_ms", "cold.build_workload_ms"),
    Row("cold: register 300 tools ms", "cold.register_300_ms", "cold.register_300_ms"),
    Row("cold: first assembly + list ms", "cold.first_assembly_ms", "cold.first_assembly_ms"),
    Row("cold:   probe calls", "cold.first_assembly_probe_calls", "cold.first_assembly_probe_calls", False),
    Row(
        "cold:   minus probes ms (tooldeck: minus longest)",
        "cold.first_assembly_minus_longest_probe_ms",
        "cold.first_assembly_minus_probes_ms",
    ),
    Row("cold: LAUNCH -> FIRST LIST ms", "cold.launch_to_first_list_ms", "cold.launch_to_first_list_ms"),
    Row("warm: REPEAT, nothing changed us", "warm.memo_hit.median_us", "warm.quiet_memo_hit.median_us"),
    Row("warm:   p90 us", "warm.memo_hit.p90_us", "warm.quiet_memo_hit.p90_us"),
    Row("warm:   probe calls", "warm.memo_hit.probe_calls", "warm.quiet_memo_hit.probe_calls", False),
    Row("warm: assemble only (no list) us", "warm.assemble_only.median_us", "warm.quiet_memo_hit.median_us"),
    Row(
        "warm: recompute, memos cleared (private) us",
        "warm.recompute_memo_cleared_private.median_us",
        "warm.recompute_quiet_memo_cleared_private.median_us",
    ),
    Row(
        "flip: public invalidate -> next list ms (no ratio: Hermes stale)",
        "availability_change.A_after_invalidate.ms",
        "availability_change.A_quiet_after_invalidate.ms",
        False,
    ),
    Row(
        "flip:   fresh (76 expected names)",
        "availability_change.A_after_invalidate.fresh",
        "availability_change.A_quiet_after_invalidate.fresh",
        False,
    ),
    Row(
        "flip:   probe calls",
        "availability_change.A_after_invalidate.probe_calls",
        "availability_change.A_quiet_after_invalidate.probe_calls",
        False,
    ),
    Row(
        "flip: first FRESH list ms (Hermes: + private memo clear)",
        "availability_change.A_after_invalidate.ms",
        "availability_change.D_quiet_invalidate_and_memo_clear_private.ms",
    ),
    Row("flip: memo hit after it ms", "availability_change.B_memo_hit_after_A.ms", None),
    Row("flip: one-key invalidate -> list ms", "availability_change.C_flip_back_invalidate_one_key.ms", None),
    Row("out: exposed", "output.exposed", "output.exposed", False),
    Row("out: names sha256[:16]", "output.exposed_names_sha256_16", "output.exposed_names_sha256_16", False),
    Row("out: JSON bytes", "output.json_bytes", "output.json_bytes", False),
    Row("out: JSON bytes compact", "output.json_bytes_compact", "output.json_bytes_compact", False),
    Row(
        "out: after flip exposed",
        "availability_change.after_flip_output.exposed",
        "availability_change.after_flip_output.exposed",
        False,
    ),
    Row(
        "out: after flip JSON bytes",
        "availability_change.after_flip_output.json_bytes",
        "availability_change.after_flip_output.json_bytes",
        False,
    ),
)


def pick(run: dict[str, Any], path: str) -> Any:
    """The figure at a dotted path, or None when this run has no such figure."""
    value: Any = run
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def median_of(runs: list[dict[str, Any]], path: str | None) -> Any:
    """The median of a numeric figure across runs; a flag or label only if every run agrees."""
    if path is None or not runs:
        return None
    values = [v for r in runs if (v := pick(r, path)) is not None]
    if not values:
        return None
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return statistics.median(values)
    return values[0] if all(v == values[0] for v in values) else f"DIFFERS {values}"


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    td, h = result["tooldeck_runs"], result["hermes_runs"]
    rows = []
    for row in ROWS:
        a, b = median_of(td, row.tooldeck), median_of(h, row.hermes)
        ratio = None
        if row.timing and isinstance(a, int | float) and isinstance(b, int | float) and a > 0:
            ratio = round(b / a, 2)
        rows.append({"figure": row.label, "tooldeck": a, "hermes": b, "ratio": ratio})
    return {"rows": rows, "verdicts": verdicts(td, h)}


def verdicts(td: list[dict[str, Any]], h: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    cold_td = median_of(td, "cold.launch_to_first_list_ms")
    warm_td = median_of(td, "warm.memo_hit.median_us")
    if h:
        cold_h = median_of(h, "cold.launch_to_first_list_ms")
        warm_h = median_of(h, "warm.quiet_memo_hit.median_us")
        ratio = cold_h / cold_td
        out.append(_v(f"cold >= {COLD_TARGET:g}x faster than Hermes", ratio >= COLD_TARGET, f"{ratio:.2f}x"))
        out.append(_v("warm <= Hermes memo hit", warm_td <= warm_h, f"{warm_td:.2f} us vs {warm_h:.2f} us"))
    out.append(
        _v(f"unchanged repeat < {REPEAT_LIMIT_US:g} us", warm_td < REPEAT_LIMIT_US, f"{warm_td:.2f} us")
    )
    out.append(_v("correct in every tooldeck run", all(not problems(r) for r in td), _problem_text(td)))
    return out


def problems(run: dict[str, Any]) -> list[str]:
    """What a tooldeck run got wrong against the fixed workload (empty when all is right)."""
    o, a = run["output"], run["availability_change"]
    want = {
        "exposed 72": o["exposed"] == 72 and o["exposed_matches_expected"],
        f"names hash {wl.EXPOSED_SHA16}": o["exposed_names_sha256_16"] == wl.EXPOSED_SHA16,
        "JSON bytes 55376/52557": (o["json_bytes"], o["json_bytes_compact"]) == (55376, 52557),
        "fresh 76 after flip + invalidate": a["A_after_invalidate"]["fresh"]
        and a["A_after_invalidate"]["exposed"] == 76,
        "after-flip bytes 58038/55088": (
            a["after_flip_output"]["json_bytes"],
            a["after_flip_output"]["json_bytes_compact"],
        )
        == (58038, 55088),
        "one-key invalidate fresh both ways": a["C_flip_back_invalidate_one_key"]["fresh"]
        and a["D_flip_again_invalidate_one_key"]["fresh"],
        "no probes on warm repeats": run["warm"]["memo_hit"]["probe_calls"] == 0,
        f"workload sha {wl.WORKLOAD_SHA256[:12]}": run["workload_sha256"] == wl.WORKLOAD_SHA256,
    }
    return [name for name, ok in want.items() if not ok]


def _problem_text(td: list[dict[str, Any]]) -> str:
    bad = sorted({p for r in td for p in problems(r)})
    return "72/hash/bytes/76-after-flip all match" if not bad else "FAILED: " + "; ".join(bad)


def _v(target: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"target": target, "ok": bool(ok), "detail": detail}


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:,.3f}" if value < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def format_table(result: dict[str, Any], summary: dict[str, Any]) -> str:
    td, h = result["tooldeck_runs"], result["hermes_runs"]
    lines = [
        f"tool assembly: {len(td)} fresh tooldeck processes / "
        + (f"{len(h)} Hermes {result['hermes_version']} runs, alternating" if h else "Hermes not run")
        + "; medians; ratio = Hermes / tooldeck",
        f"workload {result['workload_sha256'][:16]}: 300 tools / 30 toolsets / 20 checks (4 x 50 ms); "
        f"platform synplat = synset_00..07 (80 tools); python {result['python']}, cpus={result['cpus']}",
        "tooldeck path: Deck.load (config file, built-in tools discovered"
        + ("" if result.get("tooldeck_builtins", True) else ": NO, --no-builtins diagnostic")
        + f"), register 300 Tools, deck.loadout() + render_loadout(openai); scratch {result['scratch']}",
        "",
    ]
    width = max(len(r["figure"]) for r in summary["rows"]) + 2
    lines.append(f"{'figure':<{width}}{'tooldeck':>18}{'hermes':>18}{'ratio':>10}")
    lines.append("-" * (width + 46))
    for r in summary["rows"]:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else ""
        lines.append(f"{r['figure']:<{width}}{_fmt(r['tooldeck']):>18}{_fmt(r['hermes']):>18}{ratio:>10}")
    lines.append("")
    for v in summary["verdicts"]:
        lines.append(f"{'PASS' if v['ok'] else 'MISS'}  {v['target']}: {v['detail']}")
    return "\n".join(lines)


def report(result: dict[str, Any], *, as_json: bool) -> int:
    """Print the table (or JSON); exit code 0 when every target is met, 1 otherwise."""
    summary = summarise(result)
    if as_json:
        sys.stdout.write(json.dumps({**result, **summary}, indent=2) + "\n")
    else:
        sys.stdout.write(format_table(result, summary) + "\n")
    return 0 if all(v["ok"] for v in summary["verdicts"]) else 1
