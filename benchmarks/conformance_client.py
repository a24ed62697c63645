"""`python -m benchmarks conformance --client`: tooldeck's MCP client against the official suite.

Every client scenario of each pinned suite version (`conformance list --client`), each run on its
own with `conformance client --scenario NAME --command CMD`: the suite starts a mock server and
runs CMD with its URL. For tooldeck, CMD is tests/mcp/conformance/client_script.py, which writes
a config naming the server and runs `tooldeck mcp list` / `tooldeck call` as a person would. The
control is the official Python SDK's own conformance client, `.github/actions/conformance/client.py`
of the python-sdk repository (not shipped in the `mcp` package, and not copied here): give its
path with `--client-control PATH` or $TOOLDECK_CONFORMANCE_CLIENT_CONTROL; it runs with this
venv's Python and `mcp`.

A scenario passes when the suite says so (its exit code: no failed check, no warning, the
client exited 0 unless the scenario allows otherwise, within the time limit).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.conformance import (
    CHECKOUT,
    LEGS,
    Leg,
    Outcome,
    SuiteMissing,
    _suite_env,
    judged,
    listed_scenarios,
    suite_command,
)

CLIENT_SCRIPT = CHECKOUT / "tests" / "mcp" / "conformance" / "client_script.py"
# The suite's own limit for one scenario's client (its default is 30 s; tooldeck runs a few
# commands per scenario, each a fresh process, on a machine that may be busy).
SCENARIO_TIMEOUT_MS = 90_000


def client_scenarios(leg: Leg) -> list[str]:
    """The leg's client scenarios, as `conformance list --client` names them."""
    return listed_scenarios(leg, "client")


def tooldeck_command() -> str:
    return f"{sys.executable} {CLIENT_SCRIPT}"


def control_command(control: Path) -> str:
    return f"{sys.executable} {control}"


def run_scenario(leg: Leg, scenario: str, command: str, work: Path) -> tuple[Outcome, str]:
    """One client scenario against `command`: its outcome, and the suite's output (with the client's)."""
    out_dir = work / f"{leg.name}-{scenario}".replace("/", "_").replace("@", "-at-")
    out_dir.mkdir(parents=True, exist_ok=True)
    extra = ["--spec-version", leg.spec_version] if leg.spec_version else []
    args = ["client", "--command", command, "--scenario", scenario, "-o", str(out_dir)]
    args += ["--timeout", str(SCENARIO_TIMEOUT_MS), *extra]
    try:
        run = subprocess.run(
            suite_command(leg.suite, *args),
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT_MS / 1000 + 60,
            cwd=work,
            env=_suite_env(),
        )
    except subprocess.TimeoutExpired as exc:
        said = f"the suite did not finish within {exc.timeout:g} s"
        return Outcome(scenario, False, 0, [said]), said
    output = run.stdout + run.stderr
    checks: list[dict[str, object]] = []
    for found in sorted(out_dir.rglob("checks.json")):
        checks = json.loads(found.read_text())
    failures, warnings = judged(checks)
    if run.returncode != 0 and not failures:
        failures = warnings or [_verdict(output)]
    return Outcome(scenario, run.returncode == 0, len(checks), failures, warnings), output


def _verdict(output: str) -> str:
    """Why the suite failed a scenario none of whose checks failed (a timeout, the client's exit)."""
    for pattern in (r"Client timed out after \d+ms", r"Client exited with code \d+", r"SKIPPED: .*"):
        found = re.search(pattern, output)
        if found:
            return found[0]
    return "the suite failed the scenario (see its output)"


@dataclass
class ClientReport:
    leg: Leg
    client: str
    outcomes: dict[str, Outcome]
    seconds: float

    @property
    def passed(self) -> list[str]:
        return [s for s, o in self.outcomes.items() if o.passed]

    @property
    def failed(self) -> list[str]:
        return [s for s, o in self.outcomes.items() if not o.passed]


def measure(leg: Leg, client: str, command: str, work: Path, names: list[str], jobs: int = 1) -> ClientReport:
    """The scenarios `names` of `leg`, each run on its own against `command`, `jobs` at a time."""
    from concurrent.futures import ThreadPoolExecutor

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = pool.map(lambda n: run_scenario(leg, n, command, work / client)[0], names)
        outcomes = dict(zip(names, done, strict=True))
    return ClientReport(leg, client, outcomes, time.monotonic() - start)


def table(reports: list[ClientReport], *, reasons: bool = False) -> str:
    lines = [
        "MCP conformance suite (client scenarios, each run on its own)",
        "",
        f"{'suite version':<28} {'client':<10} {'passed':>8} {'non-auth':>9} {'seconds':>8}",
    ]
    for r in reports:
        score = f"{len(r.passed)}/{len(r.outcomes)}"
        plain = [s for s in r.outcomes if not s.startswith("auth/")]
        plain_score = f"{len([s for s in plain if r.outcomes[s].passed])}/{len(plain)}"
        lines.append(f"{r.leg.name:<28} {r.client:<10} {score:>8} {plain_score:>9} {r.seconds:>8.1f}")
    for r in reports:
        if r.failed:
            lines += ["", f"failing, {r.client} on {r.leg.name} ({len(r.failed)}):"]
            for name in r.failed:
                lines.append(f"  {name}")
                if reasons:
                    lines += [f"      {line[:200]}" for line in r.outcomes[name].failures]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m benchmarks conformance --client")
    parser.add_argument(
        "--client-control",
        default=os.environ.get("TOOLDECK_CONFORMANCE_CLIENT_CONTROL"),
        help="the python-sdk's conformance client (.github/actions/conformance/client.py), measured "
        "as the control ($TOOLDECK_CONFORMANCE_CLIENT_CONTROL)",
    )
    parser.add_argument("--no-control", action="store_true", help="skip the SDK's own client")
    parser.add_argument("--scenario", action="append", help="only these scenarios (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="scenarios run at the same time (default 2)")
    parser.add_argument("--reasons", action="store_true", help="the suite's failure messages too")
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    control = None if args.no_control or not args.client_control else Path(args.client_control)
    if control is not None and not control.is_file():
        print(f"benchmarks: the control client {control} is not a file", file=sys.stderr)
        return 2
    if control is None and not args.no_control:
        print("(no control: pass --client-control PATH to the SDK's conformance client)", file=sys.stderr)
    clients = {"tooldeck": tooldeck_command()}
    if control is not None:
        clients["control"] = control_command(control)
    reports: list[ClientReport] = []
    try:
        with tempfile.TemporaryDirectory(prefix="tooldeck-conformance-client-") as tmp:
            for leg in LEGS:
                names = client_scenarios(leg)
                if args.scenario:
                    names = [n for n in names if n in args.scenario]
                for client, command in clients.items():
                    reports.append(measure(leg, client, command, Path(tmp), names, args.jobs))
    except SuiteMissing as exc:
        print(f"conformance: {exc}", file=sys.stderr)
        return 1
    if args.as_json:
        data = [
            {
                "leg": r.leg.name,
                "client": r.client,
                "passed": len(r.passed),
                "total": len(r.outcomes),
                "seconds": round(r.seconds, 2),
                "failed": {n: r.outcomes[n].failures for n in r.failed},
            }
            for r in reports
        ]
        print(json.dumps(data, indent=2))
    else:
        print(table(reports, reasons=args.reasons))
    return 0
