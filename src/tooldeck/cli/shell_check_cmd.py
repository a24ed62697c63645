"""`tooldeck shell-check [COMMAND ...]`: the shell analysis verdict of each command.

Commands come from the arguments, or from standard input one per line. Each gets one line:
`BLOCK`, `APPROVE` or `SAFE` with the command, the deciding rule and why; with `--json`, one
JSON object per line, `{"command", "verdict", "rule", "reason"}`, always valid UTF-8 (a byte
that is not UTF-8 is written as the escape Python reads it as, `\\udcff`). The config's
`shell.block` and `shell.approve` lists apply. The exit code is 0 whatever the verdicts (2 for
a bad config).

`--rules` lists every rule instead: its level (after the config's lists), category, description,
and the dangerous commands and benign look-alikes it is tested on; with `--json`, one object per
rule, `{"rule", "level", "category", "description", "dangerous", "benign"}`; with `--markdown`,
the page `docs/safety-rules.md`: the rules, the verb table and the program table.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable

from tooldeck.cli.common import add_config, add_json, emit, fail


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "commands", nargs="*", metavar="COMMAND", help="commands to check (default: stdin, one per line)"
    )
    parser.add_argument(
        "--rules",
        action="store_true",
        help="list every rule with its level, category and examples instead of checking commands",
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="with --rules: the rules, verbs and programs as a Markdown page (docs/safety-rules.md)",
    )
    add_config(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    from tooldeck import load_config
    from tooldeck._utils.text import for_terminal
    from tooldeck.errors import ConfigError
    from tooldeck.safety import ShellPolicy, commands_from, shell_check_lines

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        fail(f"config error: {exc}")
    policy = ShellPolicy.of(block=config.shell.block, approve=config.shell.approve)
    if args.rules:
        if args.commands:
            fail("shell-check --rules takes no commands")
        if args.markdown:
            from tooldeck.safety.knowledge.reference import reference

            emit(reference(policy).removesuffix("\n"))
            return 0
        from tooldeck.safety.shellcheck import rule_lines

        for line in rule_lines(as_json=args.as_json, policy=policy):
            emit(line if args.as_json else for_terminal(line))
        return 0
    if args.markdown:
        fail("shell-check --markdown goes with --rules")
    commands = commands_from(args.commands, None if args.commands else _stdin_lines())
    for line in shell_check_lines(commands, as_json=args.as_json, policy=policy):
        emit(line if args.as_json else for_terminal(line))
    return 0


def _stdin_lines() -> Iterable[str]:
    """Standard input as text whatever the locale: bytes that are not UTF-8 become lone
    surrogates, as they do in the arguments, and the analyser names them (never a crash)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape")
