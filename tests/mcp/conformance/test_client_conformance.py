"""tooldeck's MCP client against the official MCP conformance suite: one test per client
scenario of each pinned suite version (`benchmarks.conformance.LEGS`), named as `conformance list
--client` names them, so a scenario the suite adds appears here by itself.

Each leg runs once, every scenario in one `conformance client --suite all` process
(leg_batch.py): a scenario that passed there beyond doubt passes; any other runs again on its
own, `conformance client --scenario NAME`, and that run is its verdict. client_script.py is the
client: the suite starts its mock server and the script points tooldeck at it (a config with the server's
URL, then `tooldeck mcp list` and `tooldeck call`), run by a fork of a warm interpreter
(warm_client.py, conftest.py) instead of a fresh one, which would import everything again. A scenario
passes when the suite says it does. The authorization scenarios (`auth/*`) are left out here
(the OAuth tests run them, through the same script). Scenarios that fail today are in
EXPECTED_FAILURES with the suite's reason, and must still fail (strict xfail). Node 22 and the
suite come from scripts/setup.sh; without them every test here fails saying so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conformance_params import scenario_params
from tests.mcp.conformance.leg_batch import LegBatch

from benchmarks import conformance as cf
from benchmarks import conformance_client as cc

pytestmark = pytest.mark.timeout(420)  # the first test of a leg runs it whole (leg_batch.py)

# "leg/scenario" for each scenario that fails today, with the suite's reason.
EXPECTED_FAILURES: frozenset[str] = frozenset()


def _client_scenarios(leg: cf.Leg) -> list[str]:
    """The leg's client scenarios but the authorization ones (test_client_auth_conformance.py)."""
    return [name for name in cc.client_scenarios(leg) if not name.startswith("auth/")]


PARAMS, LISTED, MISSING = scenario_params(
    cf.LEGS, _client_scenarios, EXPECTED_FAILURES, label=lambda leg: leg.name
)


@pytest.fixture(scope="module")
def batch(client_command: str, tmp_path_factory: pytest.TempPathFactory) -> LegBatch:
    """Each leg's scenarios run by one suite process (leg_batch.py), on first use."""
    return LegBatch(client_command, tmp_path_factory.mktemp("client-legs"), _client_scenarios)


@pytest.mark.parametrize(("leg", "scenario"), PARAMS)
def test_scenario(tmp_path: Path, leg: cf.Leg, scenario: str, client_command: str, batch: LegBatch) -> None:
    if leg.name in MISSING:
        pytest.fail(MISSING[leg.name], pytrace=False)
    if batch.passed(leg, scenario):
        return  # passed in its leg's run, as it would alone
    outcome, output = cc.run_scenario(leg, scenario, client_command, tmp_path)
    assert outcome.checks > 0, f"the suite ran no check of {scenario}:\n{output[-3000:]}"
    assert outcome.passed, (
        f"{leg.name} {scenario} failed:\n"
        + "\n".join(outcome.failures)
        + f"\n\nthe run (end):\n{output[-4000:]}"
    )


def test_every_expected_failure_names_a_listed_scenario() -> None:
    assert not MISSING, "; ".join(MISSING.values())
    assert sorted(EXPECTED_FAILURES - LISTED) == []
