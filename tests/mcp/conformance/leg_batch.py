"""Every client scenario of a suite run by one `conformance client --suite all` process.

Run one scenario at a time, the suite starts a Node process per scenario (about 0.7 s of CPU to
load the suite's bundle each time, a minute over both suites). `--suite all` runs every scenario
of the suite (at the leg's protocol revision, if it is pinned to one) in one Node process, each
with its own mock servers on ports of its own, and writes each scenario's checks
(`<out>/<scenario>-<time>/checks.json`) as a run of that scenario alone would.

`--suite all` runs the client scenarios of every kind; those the batch is not for (the
authorization ones, say, which the other test file runs) end at once: the client command exits
(warm_client.py, told by $TOOLDECK_CONFORMANCE_SCENARIOS which the batch runs).

The suite's batch mode keeps only the checks: whether the client exited with 0 or was timed out,
which a scenario run alone also judges, is not kept. The client command (warm_client.py) writes
its exit code where $TOOLDECK_CONFORMANCE_EXITS says, one file per scenario; a client the suite
killed (a timeout) writes none. A scenario the batch shows as passing — checks run, none a
FAILURE or a WARNING, its client exited with 0 — passes as it would alone. Any other scenario is
run again on its own, and that run is the verdict (and what a failure shows): a scenario the
suite lets exit with an error, a failure, a timeout under load, a scenario the suite skipped.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from benchmarks import conformance as cf

EXITS_ENV = "TOOLDECK_CONFORMANCE_EXITS"
SCENARIOS_ENV = "TOOLDECK_CONFORMANCE_SCENARIOS"

# The suite's limit for one scenario's client: every scenario of the suite runs at once.
BATCH_TIMEOUT_MS = 90_000

_RESULT = re.compile(r"^(?P<name>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")


def exit_file(folder: str, scenario: str) -> Path:
    """Where the client command of `scenario` writes its exit code."""
    return Path(folder) / scenario.replace("/", "%")


class LegBatch:
    """Each leg's scenarios run once, on first use, by one suite process; `passed` says whether
    a scenario passed there beyond doubt."""

    def __init__(self, command: str, work: Path, names: Callable[[cf.Leg], list[str]]) -> None:
        self.command = command
        self.work = work
        self.names = names
        self._clean: dict[cf.Leg, set[str]] = {}

    def passed(self, leg: cf.Leg, scenario: str) -> bool:
        if leg not in self._clean:
            self._clean[leg] = self._run(leg)
        return scenario in self._clean[leg]

    def _run(self, leg: cf.Leg) -> set[str]:
        """The scenarios of `leg` that passed cleanly in one `--suite all` run."""
        folder = self.work / leg.name.replace("@", "-at-")
        out, exits = folder / "results", folder / "exits"
        out.mkdir(parents=True)
        exits.mkdir()
        extra = ["--spec-version", leg.spec_version] if leg.spec_version else []
        args = ["client", "--command", self.command, "--suite", "all", "-o", str(out)]
        env = {**cf._suite_env(), EXITS_ENV: str(exits), SCENARIOS_ENV: " ".join(self.names(leg))}
        # On a timeout, what finished is kept; the rest run on their own.
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                cf.suite_command(leg.suite, *args, "--timeout", str(BATCH_TIMEOUT_MS), *extra),
                capture_output=True,
                timeout=BATCH_TIMEOUT_MS / 1000 + 60,
                cwd=folder,
                env=env,
            )
        clean: set[str] = set()
        for found in out.rglob("checks.json"):
            match = _RESULT.match(found.parent.relative_to(out).as_posix())
            if match is None:
                continue
            name = match["name"]
            code = exit_file(str(exits), name)
            checks = json.loads(found.read_text())
            failures, warnings = cf.judged(checks)
            if checks and not failures and not warnings and code.is_file() and code.read_text() == "0":
                clean.add(name)
        return clean
