"""The analyser on commands that hide what they do (`cases_hidden.py`): every dangerous one is
flagged with a finding of its category, and every benign look-alike stays `safe`."""

from __future__ import annotations

import pytest
from tests.safety.cases_hidden import BENIGN, DANGEROUS

from tooldeck.safety import analyse_command

DANGEROUS_CASES = [(category, command) for category, commands in DANGEROUS.items() for command in commands]
BENIGN_CASES = [(category, command) for category, commands in BENIGN.items() for command in commands]


@pytest.mark.parametrize(("category", "command"), DANGEROUS_CASES, ids=[c for _, c in DANGEROUS_CASES])
def test_hidden_danger_is_flagged(category: str, command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict != "safe", f"{command!r} ({category}) passed as safe"
    # A hook that runs a command in plain sight is judged by what it runs (`sed '1e rm -rf ~'`
    # is a deletion), so "command_hooks", like "obfuscated", only needs a finding.
    if category not in ("obfuscated", "command_hooks"):
        assert category in {f.category for f in verdict.findings}, (command, verdict.findings)


@pytest.mark.parametrize(("category", "command"), BENIGN_CASES, ids=[c for _, c in BENIGN_CASES])
def test_look_alike_stays_safe(category: str, command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict == "safe", f"{command!r} ({category}) flagged: {verdict.rule}: {verdict.reason}"


def test_every_kind_has_several_variants() -> None:
    assert all(len(commands) >= 3 for commands in DANGEROUS.values())
    assert all(len(commands) >= 10 for commands in BENIGN.values())
