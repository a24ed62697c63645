"""Each rule on its own examples (`safety/knowledge/rule_examples.toml`): one test per rule id
that its dangerous commands raise a finding of that rule, and one that its benign look-alikes pass
as safe; and `tooldeck shell-check --rules` lists every rule with its level, category and examples."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli.clirun import tooldeck
from tooldeck.safety import ShellPolicy, analyse_command
from tooldeck.safety.knowledge.rule_examples import RuleExamples, load_rule_examples, rule_examples
from tooldeck.safety.knowledge.rules import ALL_RULES, RULES_BY_ID
from tooldeck.safety.knowledge.table import TableError

RULE_IDS = [rule.id for rule in ALL_RULES]
EXAMPLES = rule_examples()


def _policy(examples: RuleExamples) -> ShellPolicy | None:
    return ShellPolicy.of(max_bytes=examples.max_bytes) if examples.max_bytes else None


def test_every_rule_has_its_examples_and_no_example_names_an_unknown_rule() -> None:
    assert set(EXAMPLES) == set(RULES_BY_ID)
    unreachable = {rule_id for rule_id, e in EXAMPLES.items() if e.unreachable}
    assert unreachable == {"analyser-error"}


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_flags_its_dangerous_examples(rule_id: str) -> None:
    examples = EXAMPLES[rule_id]
    if examples.unreachable:
        assert not examples.dangerous
        return
    for command in examples.dangerous:
        verdict = analyse_command(command, _policy(examples), cache=False)
        fired = [finding.rule for finding in verdict.findings]
        assert rule_id in fired, f"{command!r} gave {fired or 'safe'}, not {rule_id}"
        assert verdict.verdict != "safe"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_passes_its_benign_look_alikes(rule_id: str) -> None:
    examples = EXAMPLES[rule_id]
    for command in examples.benign:
        verdict = analyse_command(command, _policy(examples), cache=False)
        assert verdict.verdict == "safe", f"{command!r} flagged by {verdict.rule}: {verdict.reason}"


def test_an_entry_without_a_benign_example_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rule_examples.toml"
    path.write_text('[delete-root]\ndangerous = ["rm -rf /"]\n', encoding="utf-8")
    with pytest.raises(TableError, match=r"\[delete-root\]: a rule needs a dangerous and a benign example"):
        load_rule_examples(path)
    path.write_text(
        '[delete-root]\ndangerous = ["rm -rf /"]\nbenign = ["ls"]\nlevel = "x"\n', encoding="utf-8"
    )
    with pytest.raises(TableError, match=r"\[delete-root\]: unknown key 'level'"):
        load_rule_examples(path)


def _tooldeck(*args: str, home: Path, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--config", str(config)] if config else []
    return tooldeck("shell-check", *args, *extra, cwd=home, env={"TOOLDECK_HOME": str(home)}, timeout=120)


def test_shell_check_rules_json_lists_every_rule_with_level_category_and_examples(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    config.write_text("shell:\n  block: [git-force-push-protected]\n", encoding="utf-8")
    done = _tooldeck("--rules", "--json", home=tmp_path, config=config)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["rule"] for r in records] == RULE_IDS
    by_id = {r["rule"]: r for r in records}
    assert set(records[0]) == {"rule", "level", "category", "description", "dangerous", "benign"}
    assert by_id["git-force-push-protected"]["level"] == "block"  # the config's list applies
    assert by_id["git-discard-work"]["level"] == "approve"
    assert by_id["container-host-root"]["category"] == "privilege_system"
    assert by_id["container-host-root"]["dangerous"] and by_id["container-host-root"]["benign"]


def test_shell_check_rules_readable_shows_each_rule_and_refuses_commands(tmp_path: Path) -> None:
    done = _tooldeck("--rules", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "delete-root  (recursive_delete)" in done.stdout
    assert "    dangerous: " in done.stdout and "    benign:    " in done.stdout
    refused = _tooldeck("--rules", "ls", home=tmp_path)
    assert refused.returncode == 2 and "takes no commands" in refused.stderr
