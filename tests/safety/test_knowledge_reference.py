"""The page `docs/safety-rules.md` is generated from the rules, their examples, the verb table and
the program table (`tooldeck shell-check --rules --markdown`), and is up to date."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.cli import tooldeck_command
from tooldeck.safety.knowledge.reference import code, reference
from tooldeck.safety.knowledge.rules import ALL_RULES
from tooldeck.safety.knowledge.table import programs
from tooldeck.safety.knowledge.verbs import verbs
from tooldeck.safety.policy import ShellPolicy

PAGE = Path(__file__).resolve().parents[2] / "docs" / "safety-rules.md"


def test_the_committed_page_is_the_generated_one() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "regenerate: tooldeck shell-check --rules --markdown > docs/safety-rules.md"
    )


def test_the_page_names_every_rule_verb_and_program_of_the_tables() -> None:
    page = reference()
    assert all(f"**`{rule.id}`** ({rule.level})" in page for rule in ALL_RULES)
    assert all(f"### `{effect}`" in page for effect in verbs().effects())
    table = programs()
    names = [*table.wrappers, *table.runners, *table.shell_strings, *table.in_class("container-engine")]
    assert all(f"`{name}`" in page for name in names)


def test_the_page_shows_levels_after_a_policy() -> None:
    page = reference(ShellPolicy.of(block=["git_destruction"], approve=[]))
    assert "**`git-discard-work`** (block)" in page


def test_code_spans_hold_any_command() -> None:
    assert code("rm -rf /") == "`rm -rf /`"
    assert code("echo `id`") == "`` echo `id` ``"
    assert code("ls \x00\udcff") == "`ls \\x00\\udcff`"
    assert code("a\nb") == "`a\\nb`"


def test_the_cli_prints_the_page_and_refuses_markdown_without_rules(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"TOOLDECK_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
        return subprocess.run(
            [*tooldeck_command(), "shell-check", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )

    page = run("--rules", "--markdown")
    assert page.returncode == 0, page.stderr
    assert page.stdout == reference()
    refused = run("--markdown", "ls")
    assert refused.returncode == 2 and "--markdown goes with --rules" in refused.stderr
