"""The fixed synthetic workload of the assembly benchmark, shared with the Hermes side.

`workload.json` (in `<shared>/bench/hermes/`) holds 300 tool schemas in 30 toolsets, the verdict
of each of the 20 checks and the platform toolset `synplat`. We load it, verify its fingerprint
(`workload_sha256`), and build what both implementations need: one handler per tool and 20
instrumented check functions. `chk_03` reads its verdict from `CheckSet.state`, so flipping it
keeps the same function object (Hermes caches check results per function object, and so do we).

Only the stdlib is imported here: the cold-start child imports this module *after* tooldeck.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooldeck.errors import ConfigError

WORKLOAD_SHA256 = "7b7bdd9ff043e51bcc5af207f398c9da8709e352250d276a424c62ae998aee06"
EXPOSED_SHA16 = "55a3fe2bdfb4dd63"  # sha256 of the 72 expected names joined with ","
SLOW_CHECK = "sleep_50ms_then_true"
SLOW_SLEEP_S = 0.050
FLIP_CHECK = "chk_03"
PLATFORM = "bench"
HERMES_DIR = Path("bench") / "hermes"


def find_shared(shared: str | os.PathLike[str] | None = None) -> Path:
    """The shared folder (see `benchmarks.paths.shared_dir`), checked to hold the workload."""
    from benchmarks.paths import BenchSetupError, shared_dir

    try:
        path = shared_dir(shared)
    except BenchSetupError as exc:
        raise ConfigError(str(exc), path="--shared") from None
    if not (path / HERMES_DIR / "workload.json").is_file():
        raise ConfigError(f"{path / HERMES_DIR / 'workload.json'} not found", path="--shared")
    return path


def fingerprint(doc: dict[str, Any]) -> str:
    """sha256 of the document without its own `workload_sha256`, canonical JSON (as Hermes's script)."""
    body = {k: v for k, v in doc.items() if k != "workload_sha256"}
    blob = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def read_workload(path: Path, *, verify: bool = True) -> dict[str, Any]:
    """Parse `workload.json`; with `verify`, a changed file is a ConfigError naming both hashes."""
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read workload {path}: {exc}", path="--shared") from None
    if verify:
        got = fingerprint(doc)
        if got != WORKLOAD_SHA256 or doc.get("workload_sha256") != WORKLOAD_SHA256:
            raise ConfigError(
                f"workload {path} has sha256 {got} (file says {doc.get('workload_sha256')}), "
                f"expected {WORKLOAD_SHA256}",
                path="--shared",
            )
    return doc


@dataclass
class ProbeStats:
    """What the checks did: calls and time spent inside them (checks run in several threads)."""

    calls: int = 0
    ns: int = 0
    max_ns: int = 0
    per_check: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def mark(self) -> tuple[int, int]:
        """Start a phase: returns the counters to diff against and resets the longest-probe figure."""
        with self.lock:
            self.max_ns = 0
            return self.calls, self.ns

    def delta(self, before: tuple[int, int]) -> dict[str, Any]:
        with self.lock:
            return {
                "probe_calls": self.calls - before[0],
                "probe_ms": round((self.ns - before[1]) / 1e6, 3),
                "probe_max_ms": round(self.max_ns / 1e6, 3),
            }


@dataclass
class CheckSet:
    """The 20 check functions; `state[name]` is the verdict of each fast check."""

    checks: dict[str, Callable[[], bool]]
    state: dict[str, bool]
    stats: ProbeStats


def make_checks(spec: dict[str, bool | str]) -> CheckSet:
    stats = ProbeStats(per_check=dict.fromkeys(spec, 0))
    state = {name: v for name, v in spec.items() if isinstance(v, bool)}
    checks = {name: _make_check(name, verdict == SLOW_CHECK, state, stats) for name, verdict in spec.items()}
    return CheckSet(checks, state, stats)


def _make_check(name: str, slow: bool, state: dict[str, bool], stats: ProbeStats) -> Callable[[], bool]:
    pc = time.perf_counter_ns

    def check() -> bool:
        t = pc()
        if slow:
            time.sleep(SLOW_SLEEP_S)
            result = True
        else:
            result = state[name]
        spent = pc() - t
        with stats.lock:
            stats.calls += 1
            stats.per_check[name] += 1
            stats.ns += spent
            stats.max_ns = max(stats.max_ns, spent)
        return result

    check.__name__ = check.__qualname__ = name
    return check


def make_handler(name: str) -> Callable[[dict[str, Any]], str]:
    dumps = json.dumps

    def handler(args: dict[str, Any]) -> str:
        return dumps({"tool": name, "ok": True, "query": args.get("query")})

    handler.__name__ = handler.__qualname__ = f"handle_{name}"
    return handler


@dataclass(frozen=True)
class ToolSpec:
    """One tool of the workload, before it becomes a tooldeck Tool."""

    name: str
    toolset: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[dict[str, Any]], str]
    check: Callable[[], bool]


def tool_specs(doc: dict[str, Any], checks: CheckSet) -> list[ToolSpec]:
    out = []
    for entry in doc["tools"]:
        schema = entry["schema"]
        out.append(
            ToolSpec(
                schema["name"],
                entry["toolset"],
                schema["description"],
                schema["parameters"],
                make_handler(schema["name"]),
                checks.checks[entry["check"]],
            )
        )
    return out


def expected_exposed(doc: dict[str, Any], state: dict[str, bool]) -> list[str]:
    """The names the platform toolset should expose when the checks answer as in `state`."""
    includes = set(doc["platform"]["synplat"])
    return sorted(
        e["schema"]["name"] for e in doc["tools"] if e["toolset"] in includes and state.get(e["check"], True)
    )


def names_sha16(names: list[str]) -> str:
    return hashlib.sha256(",".join(names).encode()).hexdigest()[:16]


def json_sizes(tools: list[dict[str, Any]]) -> dict[str, int]:
    """Bytes of the OpenAI `tools` list, with json.dumps defaults and compact separators."""
    return {
        "json_bytes": len(json.dumps(tools).encode()),
        "json_bytes_compact": len(json.dumps(tools, separators=(",", ":")).encode()),
    }
