"""The analyser's knowledge as a Markdown page, generated from the rules, their examples, the
verb table and the program table (so it cannot drift from them): `docs/safety-rules.md` is this
text (`tooldeck shell-check --rules --markdown`), checked by a test."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

from tooldeck.safety.knowledge.entries import Program
from tooldeck.safety.knowledge.rule_examples import RuleExamples, rule_examples
from tooldeck.safety.knowledge.rules import ALL_RULES, CATEGORIES
from tooldeck.safety.knowledge.table import programs
from tooldeck.safety.knowledge.verbs import FACTS, Verb, verbs
from tooldeck.safety.policy import ShellPolicy

HEADER = """# What the shell analyser knows

Generated from the rules, their examples (`safety/knowledge/rule_examples.toml`), the verb table
(`safety/knowledge/verbs.toml`) and the program table (`safety/knowledge/programs.toml`) by
`tooldeck shell-check --rules --markdown`; a test fails when this page is stale. How the analyser
reads a command, and how to move rules between levels, is in [Safety](safety.md#shell-analysis).
"""


def code(text: str) -> str:
    """`text` as a Markdown code span, whatever backticks it holds; characters that cannot be
    shown (NUL, lone surrogates, control characters) as their escapes (`\\x00`, `\\udcff`)."""
    text = "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode() for c in text
    )
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest or text.startswith(("`", " ")) or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _codes(items: Iterable[str]) -> str:
    return ", ".join(code(item) for item in items)


def _rules(out: io.StringIO, policy: ShellPolicy) -> None:
    out.write("\n## Rules\n\nEach rule with its default level, what it judges, and the commands it is ")
    out.write(
        "tested on: each dangerous one must be flagged by the rule, each benign look-alike must pass.\n"
    )
    examples = rule_examples()
    for category in CATEGORIES:
        out.write(f"\n### {category}\n\n")
        for rule in (r for r in ALL_RULES if r.category == category):
            own = examples.get(rule.id, RuleExamples())
            out.write(f"- **`{rule.id}`** ({policy.level(rule)}): {rule.description}\n")
            for label, commands in (("dangerous", own.dangerous), ("benign", own.benign)):
                out.write(f"    - {label}: {_codes(commands)}\n" if commands else "")
            if own.unreachable:
                out.write(f"    - no command raises it on purpose: {own.unreachable}\n")


def _verb_line(verb: Verb) -> str:
    commands = [" ".join(c) for c in verb.commands if c]
    parts = [_codes(sorted(verb.programs))]
    if commands:
        parts.append("commands " + _codes(commands))
    if verb.with_:
        parts.append("with " + _codes(verb.with_))
    unless = [u for u in verb.unless if u != "--help"]
    if unless:
        parts.append("unless " + _codes(unless))
    return f"- {'; '.join(parts)}: {verb.says}\n"


def _verbs(out: io.StringIO) -> None:
    out.write("\n## Verbs: which command has which effect\n\n")
    out.write("A rule takes these first (after global options and option values), then what its own ")
    out.write("code judges; `prints-secrets` is a fact the secret-transfer rules ask about.\n")
    table = verbs()
    for effect in sorted(table.effects(), key=lambda e: (e in FACTS, e)):
        out.write(f"\n### `{effect}`\n\n")
        for verb in (v for v in table.all() if v.effect == effect):
            out.write(_verb_line(verb))


_OPERANDS = {"all": "every operand", "last": "the last operand", "second": "the second operand"}


def _programs(out: io.StringIO) -> None:
    table = programs()
    out.write("\n## Programs\n\n")
    out.write("Wrappers are peeled (the wrapped program is judged, as root under `sudo`): ")
    out.write(_codes(sorted(table.wrappers)) + ".\n\n")
    out.write("Package runners run the package they name: " + _codes(sorted(table.runners)) + ".\n\n")
    out.write("Programs that hand a string to a shell: " + _codes(sorted(table.shell_strings)) + ".\n\n")
    listed: list[Program] = list({id(p): p for p in table.programs.values()}.values())
    classes = sorted({c for p in listed for c in p.classes})
    out.write(
        "### Classes\n\nRules that judge a class judge every program in it, past its global options.\n\n"
    )
    for cls in classes:
        out.write(f"- `{cls}`: {_codes(sorted(table.in_class(cls)))}\n")
    out.write("\n### Files a program writes\n\n")
    for program, writes in ((p, p.writes) for p in listed if p.writes is not None):
        how = [f"options {_codes(sorted(writes.options))}"] if writes.options else []
        how += [f"words {_codes(writes.keys)}"] if writes.keys else []
        how += [_OPERANDS[writes.operands]] if writes.operands else []
        out.write(f"- {_codes(program.names)}: {', '.join(how)} ({writes.kind})\n")


def reference(policy: ShellPolicy | None = None) -> str:
    """The page: every rule with its level and examples, the verbs, and the program table."""
    out = io.StringIO()
    out.write(HEADER)
    _rules(out, policy or ShellPolicy())
    _verbs(out)
    _programs(out)
    return out.getvalue()


__all__ = ["code", "reference"]
