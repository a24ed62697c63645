"""`tooldeck serve --transport http` against the official MCP conformance suite, one test per
server scenario of each pinned suite version (`benchmarks.conformance.LEGS`), named as
`conformance list --server` names them: a scenario the suite adds appears here by itself.

Each leg is one `conformance server --suite all` run against one fresh `tooldeck serve` process
serving conformance_tools.py (about 4 s for 0.1.16, 11 s for 0.2.0-alpha.12, 9 s for it pinned
to 2026-07-28; some 25 s for the module). A scenario passes when none of its checks is a
FAILURE. Scenarios that fail today are listed in EXPECTED_FAILURES with the suite's reason, and
their tests must still fail (strict xfail): when serve gains the feature, the entry must go.
Node 22 and the suite come from scripts/setup.sh; without them every test here fails saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conformance_params import scenario_params

from benchmarks import conformance as cf

pytestmark = pytest.mark.timeout(300)

V1 = "0.1.16"
V2 = "0.2.0-alpha.12"
V2_2026 = "0.2.0-alpha.12@2026-07-28"  # every scenario of 0.2.0-alpha.12 that exists at 2026-07-28
ALL = (V1, V2, V2_2026)
STATEFUL = (V1, V2)  # legs whose scenarios include the 2025 subscription ones

# "leg/scenario" for each scenario that fails today, grouped by what it lacks; the comment above
# each group quotes the suite's failure message.
EXPECTED_FAILURES: frozenset[str] = frozenset()


PARAMS, LISTED, MISSING = scenario_params(
    cf.LEGS, cf.scenarios, EXPECTED_FAILURES, label=lambda leg: leg.name
)


class Runs:
    """Each leg run once, on first use, against its own `tooldeck serve`."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.done: dict[str, tuple[dict[str, cf.Outcome], str]] = {}

    def get(self, leg: cf.Leg) -> tuple[dict[str, cf.Outcome], str]:
        if leg.name not in self.done:
            work = self.work / leg.name.replace("@", "-at-")
            with cf.serve_tooldeck(work) as url:
                self.done[leg.name] = cf.run_leg(leg, url, work)
        return self.done[leg.name]

    def serve_log(self, leg: cf.Leg) -> str:
        log = self.work / leg.name.replace("@", "-at-") / "tooldeck" / "serve.log"
        return log.read_text(errors="replace")[-3000:] if log.is_file() else ""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return Runs(tmp_path_factory.mktemp("conformance"))


@pytest.mark.parametrize(("leg", "scenario"), PARAMS)
def test_scenario(runs: Runs, leg: cf.Leg, scenario: str) -> None:
    if leg.name in MISSING:
        pytest.fail(MISSING[leg.name], pytrace=False)
    outcomes, output = runs.get(leg)
    outcome = outcomes.get(scenario)
    assert outcome is not None, f"the suite reported no result for {scenario}:\n{output[-3000:]}"
    assert outcome.passed, (
        f"{leg.name} {scenario} failed:\n"
        + "\n".join(outcome.failures)
        + f"\n\ntooldeck serve's log (end):\n{runs.serve_log(leg)}"
    )


def test_every_expected_failure_names_a_listed_scenario() -> None:
    assert not MISSING, "; ".join(MISSING.values())
    assert sorted(EXPECTED_FAILURES - LISTED) == []
