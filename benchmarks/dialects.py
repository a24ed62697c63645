"""`tooldeck bench dialects`: render the 527 LiveMCP schemas in all four dialects, vs Hermes 0.19.0.

Measured in one run:

  * tooldeck, per dialect: `Dialect.render` of every tool (its parameters as `Tool(...)` stores
    them), median over the rounds; plus the one-off normalisation `Tool(...)` does;
  * Hermes, per dialect, in a subprocess with the Hermes venv (`dialects_hermes.py`): its
    sanitizer (every request) followed by its Responses / Anthropic / Gemini conversion;
  * warm: `render_loadout` of an unchanged 527-tool loadout, served from the loadout's cache;
  * correctness: list/object `default`s changed by the conversion (Hermes #55077), and for
    tooldeck the number of tools whose strict form was refused (with reasons).

The ratio is Hermes / tooldeck (> 1: tooldeck is faster). Targets: faster than Hermes in every
dialect; warm re-render under 50 us.
"""

from __future__ import annotations

import json
import logging
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.assembly import hermes_python
from benchmarks.paths import run_peer_script
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.dialects import DIALECTS, get_dialect, render_loadout
from tooldeck._core.dialects.names import safe_name
from tooldeck._core.tool import Tool
from tooldeck.errors import ConfigError, TooldeckError

SCHEMAS = Path("data") / "schemas" / "livemcp_tool_schemas.json"
HERMES_SCRIPT = Path(__file__).with_name("dialects_hermes.py")
WARM_TARGET_US = 50.0
ORDER = ("openai", "responses", "anthropic", "gemini")


def find_schemas(path: str | None = None) -> Path:
    """The LiveMCP schema file: `path`, else `data/schemas/...` in the shared folder."""
    from benchmarks.paths import BenchSetupError, shared_file

    if path is not None:
        if not Path(path).is_file():
            raise ConfigError(f"{path} not found", path="--schemas")
        return Path(path)
    try:
        return shared_file(str(SCHEMAS))
    except BenchSetupError as exc:
        raise ConfigError(f"{exc}; or pass --schemas FILE", path="--schemas") from None


@dataclass
class DialectsResult:
    tools: int
    rounds: int
    ours_us: dict[str, float] = field(default_factory=dict)  # per schema, render only
    normalise_us: float = 0.0  # per schema, once (Tool construction)
    warm_us: dict[str, float] = field(default_factory=dict)  # per render_loadout call
    hermes_us: dict[str, float] = field(default_factory=dict)
    hermes_error: str | None = None
    defaults_changed: dict[str, int] = field(default_factory=dict)
    strict_refused: int = 0

    def ratio(self, dialect: str, *, with_normalise: bool = False) -> float | None:
        """Hermes / tooldeck; `with_normalise` adds the one-off `Tool(...)` normalisation to ours."""
        hermes = self.hermes_us.get(dialect)
        ours = self.ours_us[dialect] + (self.normalise_us if with_normalise else 0.0)
        return hermes / ours if hermes else None

    def to_json(self) -> dict[str, Any]:
        rows = [
            {
                "dialect": d,
                "tooldeck_us_per_schema": round(self.ours_us[d], 2),
                "hermes_us_per_schema": round(self.hermes_us[d], 2) if d in self.hermes_us else None,
                "ratio": round(r, 2) if (r := self.ratio(d)) else None,
                "ratio_with_normalise": round(r, 2) if (r := self.ratio(d, with_normalise=True)) else None,
                "warm_render_us": round(self.warm_us[d], 2),
            }
            for d in ORDER
        ]
        return {
            "tools": self.tools,
            "rounds": self.rounds,
            "normalise_us_per_schema": round(self.normalise_us, 2),
            "dialects": rows,
            "defaults_changed": self.defaults_changed,
            "strict_refused": self.strict_refused,
            "hermes_error": self.hermes_error,
            "targets": {
                "faster_than_hermes": all((self.ratio(d) or 0) > 1 for d in ORDER)
                if self.hermes_us
                else None,
                "warm_under_50us": all(v < WARM_TARGET_US for v in self.warm_us.values()),
            },
        }


def _median_seconds(run: Any, rounds: int) -> float:
    run()  # warm-up
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _tools(entries: list[dict[str, Any]]) -> list[Tool]:
    taken: set[str] = set()
    return [
        Tool(
            name=safe_name(e["name"], taken),
            description=e.get("description") or "",
            parameters=e["inputSchema"],
        )
        for e in entries
    ]


def _changed_defaults(tools: list[Tool], dialect: str) -> int:
    renderer = get_dialect(dialect)
    changed = 0
    for tool in tools:
        params = renderer.parameters_of(renderer.render(tool.name, "", tool.parameters).payload) or {}
        for name, prop in tool.parameters.get("properties", {}).items():
            default = prop.get("default") if isinstance(prop, dict) else None
            if (
                isinstance(default, list | dict)
                and default
                and params["properties"][name].get("default") != default
            ):
                changed += 1
                break
    return changed


def run_dialects_bench(
    schemas: Path,
    *,
    rounds: int = 5,
    warm_calls: int = 2000,
    hermes: bool = True,
    hermes_py: str | None = None,
) -> DialectsResult:
    entries: list[dict[str, Any]] = json.loads(schemas.read_text(encoding="utf-8"))
    logging.getLogger("tooldeck._core.dialects").setLevel(logging.ERROR)  # normalisation notes: not news here
    result = DialectsResult(tools=len(entries), rounds=rounds)
    tools = _tools(entries)
    raw = [e["inputSchema"] for e in entries]
    from tooldeck._core.schemas.normalize import normalize_parameters

    seconds = _median_seconds(lambda: [normalize_parameters(s) for s in raw], rounds)
    result.normalise_us = seconds / len(raw) * 1e6
    for dialect in ORDER:
        renderer = get_dialect(dialect)
        specs = [(t.name, t.description, t.parameters) for t in tools]
        seconds = _median_seconds(lambda r=renderer, s=specs: [r.render(*x) for x in s], rounds)
        result.ours_us[dialect] = seconds / len(tools) * 1e6
        result.warm_us[dialect] = _warm_us(tools, dialect, warm_calls)
        result.defaults_changed[f"tooldeck/{dialect}"] = _changed_defaults(tools, dialect)
    strict = get_dialect("openai", strict=True)
    result.strict_refused = sum(1 for t in tools if strict.render(t.name, "", t.parameters).strict_reason)
    if hermes:
        _run_hermes(schemas, rounds, hermes_py, result)
    return result


def _warm_us(tools: list[Tool], dialect: str, calls: int) -> float:
    """Median time of `render_loadout` on an unchanged loadout after the first (cold) render."""
    loadout = Loadout(
        platform="bench",
        exposed=tuple(tools),
        deferred=(),
        hidden=(),
        descriptions={t.name: str(t.description) for t in tools},
        reasons={},
    )
    first = render_loadout(loadout, dialect)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        again = render_loadout(loadout, dialect)
        samples.append(time.perf_counter() - start)
        # A new list each time, holding the same cached (read-only) tool objects.
        if again is first or any(a is not b for a, b in zip(again, first, strict=True)):
            raise TooldeckError("warm render did not come from the cache")
    return statistics.median(samples) * 1e6


def _run_hermes(schemas: Path, rounds: int, hermes_py: str | None, result: DialectsResult) -> None:
    python = hermes_python(hermes_py)
    data, error = run_peer_script([python, str(HERMES_SCRIPT), str(schemas), str(rounds)])
    if data is None:
        result.hermes_error = error
        return
    result.hermes_us = {d: s / data["tools"] * 1e6 for d, s in data["seconds"].items()}
    result.defaults_changed["hermes/sanitizer"] = data["defaults_changed"]


def format_table(result: DialectsResult) -> str:
    lines = [
        f"dialects: {result.tools} LiveMCP schemas, median of {result.rounds} rounds (us per schema)",
        f"{'dialect':<10} {'tooldeck':>9} {'hermes':>9} {'ratio':>7} {'ratio+norm':>10} {'warm call':>10}",
    ]
    for d in ORDER:
        hermes = result.hermes_us.get(d)
        ratio, with_norm = result.ratio(d), result.ratio(d, with_normalise=True)
        lines.append(
            f"{d:<10} {result.ours_us[d]:>9.1f} {hermes if hermes is not None else float('nan'):>9.1f} "
            f"{(f'{ratio:.2f}x' if ratio else '-'):>7} {(f'{with_norm:.2f}x' if with_norm else '-'):>10} "
            f"{result.warm_us[d]:>8.2f}us"
        )
    lines.append(f"normalise once (Tool(...)): {result.normalise_us:.1f} us per schema")
    lines.append(
        "ratio = hermes / tooldeck (> 1: tooldeck faster); ratio+norm counts Tool(...)'s one-off "
        "normalisation in tooldeck's time; warm = render_loadout of an unchanged loadout"
    )
    changed = ", ".join(f"{k}: {v}" for k, v in result.defaults_changed.items())
    lines.append(f"tools with a list/object default changed: {changed}")
    lines.append(
        f"openai strict mode refused (with a reason) for {result.strict_refused} of {result.tools} tools"
    )
    if result.hermes_error:
        lines.append(f"hermes failed: {result.hermes_error}")
    targets = result.to_json()["targets"]
    lines.append(
        f"targets: faster than hermes: {_verdict(targets['faster_than_hermes'])}; "
        f"warm under {WARM_TARGET_US:.0f} us: {_verdict(targets['warm_under_50us'])}"
    )
    return "\n".join(lines)


def _verdict(value: bool | None) -> str:
    return "n/a" if value is None else ("yes" if value else "NO")


__all__ = ["DIALECTS", "DialectsResult", "find_schemas", "format_table", "run_dialects_bench"]


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks dialects [--rounds N] [--schemas FILE] [--no-hermes] [--json]`."""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m benchmarks dialects", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds per figure (median reported)")
    ap.add_argument("--schemas", default=None, help="LiveMCP schema file (default: in the shared folder)")
    ap.add_argument("--no-hermes", action="store_true", help="tooldeck only")
    ap.add_argument("--hermes-python", default=None, help="python of a Hermes venv ($HERMES_PY)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    try:
        result = run_dialects_bench(
            find_schemas(args.schemas),
            rounds=args.rounds,
            hermes=not args.no_hermes,
            hermes_py=args.hermes_python,
        )
    except ConfigError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), indent=2) if args.json else format_table(result))
    return 1 if result.hermes_error else 0
