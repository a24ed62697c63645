"""The analyser on hundreds of commands written for these tests: each category, each evasion form,
and benign look-alikes that must stay `safe`."""

from __future__ import annotations

import pytest
from tests.safety.cases import BENIGN, DANGEROUS

from tooldeck.safety import analyse_command

DANGEROUS_CASES = [(category, command) for category, commands in DANGEROUS.items() for command in commands]
BENIGN_CASES = [(category, command) for category, commands in BENIGN.items() for command in commands]


@pytest.mark.parametrize(("category", "command"), DANGEROUS_CASES, ids=[c for _, c in DANGEROUS_CASES])
def test_dangerous_command_is_flagged(category: str, command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict != "safe", f"{command!r} ({category}) passed as safe"
    assert verdict.rule is not None and verdict.reason
    if category != "obfuscated":
        assert category in {f.category for f in verdict.findings}, (command, verdict.findings)


@pytest.mark.parametrize(("category", "command"), BENIGN_CASES, ids=[c for _, c in BENIGN_CASES])
def test_benign_look_alike_is_safe(category: str, command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict == "safe", f"{command!r} ({category}) flagged: {verdict.rule}: {verdict.reason}"


def test_the_corpus_is_large() -> None:
    assert len(DANGEROUS_CASES) >= 250
    assert len(BENIGN_CASES) >= 180
