"""What `tooldeck shell-check` prints: one line per command, a readable line or a JSON object."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tooldeck._utils.text import json_text
from tooldeck.safety.analyse import analyse_command
from tooldeck.safety.policy import ShellPolicy
from tooldeck.safety.verdict import Verdict


def commands_from(arguments: list[str], stdin_lines: Iterable[str] | None) -> Iterator[str]:
    """The commands to check: the arguments if any, else each non-blank line of standard input."""
    if arguments:
        yield from arguments
        return
    for line in stdin_lines or ():
        command = line.rstrip("\r\n")
        if command.strip():
            yield command


def shell_check_lines(
    commands: Iterable[str], *, as_json: bool = False, policy: ShellPolicy | None = None
) -> Iterator[str]:
    """One output line per command; JSON lines are `{"command", "verdict", "rule", "reason"}`.

    A JSON line is always valid UTF-8: a command holding bytes that are not UTF-8 (which Python
    reads as lone surrogates) is written with ASCII escapes (`"ls \\udcff"`), reading back as
    the same string; readable lines are for `for_terminal`."""
    for command in commands:
        verdict = analyse_command(command, policy)
        yield json_text(verdict.as_dict(), indent=None) if as_json else format_verdict(verdict)


def rule_records(policy: ShellPolicy | None = None) -> list[dict[str, Any]]:
    """Every rule: id, level (under `policy`), category, description and its examples."""
    from tooldeck.safety.knowledge.rule_examples import RuleExamples, rule_examples
    from tooldeck.safety.knowledge.rules import ALL_RULES

    policy = policy or ShellPolicy()
    examples = rule_examples()
    records: list[dict[str, Any]] = []
    for rule in ALL_RULES:
        own = examples.get(rule.id, RuleExamples())
        records.append(
            {
                "rule": rule.id,
                "level": policy.level(rule),
                "category": rule.category,
                "description": rule.description,
                "dangerous": list(own.dangerous),
                "benign": list(own.benign),
            }
        )
    return records


def rule_lines(*, as_json: bool = False, policy: ShellPolicy | None = None) -> Iterator[str]:
    """`tooldeck shell-check --rules`: one JSON object per rule, or a readable block per rule."""
    for record in rule_records(policy):
        if as_json:
            yield json_text(record, indent=None)
            continue
        yield f"{record['level'].upper().ljust(7)}  {record['rule']}  ({record['category']}) {record['description']}"
        yield from (f"    dangerous: {c}" for c in record["dangerous"])
        yield from (f"    benign:    {c}" for c in record["benign"])


def format_verdict(verdict: Verdict) -> str:
    """`BLOCK    delete-root: rm deletes /: the whole root filesystem  <-  rm -rf /`"""
    label = verdict.verdict.upper().ljust(7)
    command = verdict.command.replace("\n", "\\n")
    if verdict.rule is None:
        return f"{label}  {command}"
    return f"{label}  {command}  [{verdict.rule}] {verdict.reason}"
