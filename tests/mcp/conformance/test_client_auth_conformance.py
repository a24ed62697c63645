"""tooldeck's MCP client against the authorization scenarios of the official conformance suite:
one test per `auth/*` client scenario of each pinned suite version, named as `conformance list
--client` names them (a scenario the suite adds appears here by itself).

Each suite runs once, every scenario in one `conformance client --suite all` process
(leg_batch.py): a scenario that passed there beyond doubt passes; any other runs again on its
own, `conformance client --scenario NAME --command "python client_script.py"` (the script run
by a fork of a warm interpreter: conftest.py), and that run is its verdict. The suite starts its mock MCP server and authorization server, and client_script.py uses tooldeck as
a person would — a config naming the server (with the scenario's pre-registered client, if it
hands one out, its secret in an environment variable), `tooldeck mcp login`, `tooldeck mcp list`
and `tooldeck call` — with $TOOLDECK_OAUTH_FOLLOW_REDIRECT set, so the login follows the mock
authorization server's redirect without a browser (as the SDK's own conformance client does).
A scenario passes when none of its checks is a FAILURE. Those that fail today are listed in
EXPECTED_FAILURES with the reason, and must still fail (strict xfail). Node 22 and the suites
come from scripts/setup.sh; without them every test here fails saying so.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.conformance_params import scenario_params
from tests.mcp.conformance.leg_batch import LegBatch

from benchmarks import conformance as cf

pytestmark = pytest.mark.timeout(420)  # the first test of a suite runs it whole (leg_batch.py)

V1, V2 = cf.SUITE_VERSIONS

# "suite/scenario" for each scenario that fails today, with why.
EXPECTED_FAILURES: dict[str, str] = {
    # The 0.1.16 mock serves metadata naming issuer <root>/oauth at the root's well-known URL; the
    # SDK's RFC 8414 issuer check (which tooldeck keeps) refuses it, and so does the SDK's own
    # client. 0.2.0-alpha.12 fixed the mock, and passes.
    f"{V1}/auth/2025-03-26-oauth-metadata-backcompat": "metadata issuer mismatch in the 0.1.16 mock",
    # Extensions tooldeck's config has no way to ask for yet: DPoP, workload identity federation.
    f"{V2}/auth/dpop": "DPoP not offered (the SDK has no DPoP either)",
    f"{V2}/auth/dpop-nonce": "DPoP not offered (the SDK has no DPoP either)",
    f"{V2}/auth/wif-jwt-bearer": "workload identity federation (jwt-bearer) not offered",
}


def _auth_scenarios(suite: str) -> list[str]:
    return [n for n in cf.listed_scenarios(cf.Leg(suite), "client") if n.startswith("auth/")]


PARAMS, LISTED, MISSING = scenario_params(cf.SUITE_VERSIONS, _auth_scenarios, EXPECTED_FAILURES, label=str)


def run_scenario(suite: str, scenario: str, work: Path, command: str) -> tuple[list[dict[str, object]], str]:
    """The scenario's checks, and the output of the suite and of the script (for a failure);
    `command` runs client_script.py (a fork of a warm interpreter: conftest.py)."""
    out = work / "results"
    run = subprocess.run(
        cf.suite_command(suite, "client", "--command", command, "--scenario", scenario, "-o", str(out)),
        capture_output=True,
        text=True,
        timeout=150,
        cwd=work,
        env=cf._suite_env(),
    )
    found = sorted(out.glob("**/checks.json"))
    said = run.stdout[-3000:] + run.stderr[-2000:]
    if not found:
        return [], said
    script_log = found[0].parent / "stderr.txt"
    if script_log.is_file():
        said += "\n--- client_script.py ---\n" + script_log.read_text(errors="replace")[-4000:]
    checks: list[dict[str, object]] = json.loads(found[0].read_text())
    return checks, said


@pytest.fixture(scope="module")
def batch(client_command: str, tmp_path_factory: pytest.TempPathFactory) -> LegBatch:
    """Each suite's scenarios run by one suite process (leg_batch.py), on first use."""
    return LegBatch(
        client_command, tmp_path_factory.mktemp("auth-legs"), lambda leg: _auth_scenarios(leg.suite)
    )


@pytest.mark.parametrize(("suite", "scenario"), PARAMS)
def test_auth_scenario(
    suite: str, scenario: str, tmp_path: Path, client_command: str, batch: LegBatch
) -> None:
    if suite in MISSING:
        pytest.fail(MISSING[suite], pytrace=False)
    if batch.passed(cf.Leg(suite), scenario):
        return  # passed in its suite's run, as it would alone
    checks, said = run_scenario(suite, scenario, tmp_path, client_command)
    assert checks, f"the suite reported no checks for {scenario}:\n{said}"
    failures = [
        f"{c.get('id')}: {c.get('errorMessage') or c.get('description')}"
        for c in checks
        if c.get("status") == "FAILURE"
    ]
    assert not failures, f"{suite} {scenario} failed:\n" + "\n".join(failures) + f"\n\n{said}"


def test_every_expected_failure_names_a_listed_scenario() -> None:
    assert not MISSING, "; ".join(MISSING.values())
    assert sorted(set(EXPECTED_FAILURES) - LISTED) == []
