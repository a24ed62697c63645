"""What `tooldeck shell-check` prints: one line per command, a readable line or a JSON object."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

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


def format_verdict(verdict: Verdict) -> str:
    """`BLOCK    delete-root: rm deletes /: the whole root filesystem  <-  rm -rf /`"""
    label = verdict.verdict.upper().ljust(7)
    command = verdict.command.replace("\n", "\\n")
    if verdict.rule is None:
        return f"{label}  {command}"
    return f"{label}  {command}  [{verdict.rule}] {verdict.reason}"
