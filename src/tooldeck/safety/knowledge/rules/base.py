"""A rule: an id, a category, a default level, and a matcher over one resolved invocation.

Matchers see `Invocation`s, never raw text, so words that are only quoted or echoed cannot
match. Rules whose evidence is not one invocation (a self-spawning function, a parse failure)
have no matcher; the analyser raises them by id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tooldeck.safety.analysis.argv import Options, options
from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.flows import output_of
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.paths import resolve
from tooldeck.safety.verdict import RuleLevel

Matcher = Callable[[Invocation], "str | None"]
# A class of written files: why a file `inv` writes is in the class, or None.
Target = Callable[[Invocation, Field], "str | None"]
# A condition on what `inv` writes (its standard output's text, None when not known statically).
Content = Callable[[Invocation, "str | None"], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    category: str
    level: RuleLevel
    description: str
    match: Matcher | None = None
    # The rule judges the program's own verb, which a dry run does not carry out (`dry_run.py`).
    previewable: bool = False
    # Matched by the verb table alone (`RuleSet.declare`), not by a matcher of its own.
    declared: bool = False


class RuleSet:
    """The rules of one category, declared with the `rule` decorator in their module."""

    def __init__(self, category: str) -> None:
        self.category = category
        self.rules: list[Rule] = []

    def rule(
        self, rule_id: str, level: RuleLevel, description: str, *, previewable: bool = False
    ) -> Callable[[Matcher], Matcher]:
        def register(func: Matcher) -> Matcher:
            self.rules.append(Rule(rule_id, self.category, level, description, func, previewable))
            return func

        return register

    def writes(
        self, rule_id: str, level: RuleLevel, description: str, *, content: Content | None = None
    ) -> Callable[[Target], Target]:
        """A rule over one effect: writing a file of a class (the decorated `Target`), optionally
        only with some content; judged over every file the command writes (`written_match`)."""

        def register(target: Target) -> Target:
            def match(inv: Invocation) -> str | None:
                return written_match(inv, target, content)

            self.rules.append(Rule(rule_id, self.category, level, description, match))
            return target

        return register

    def declare(self, rule_id: str, level: RuleLevel, description: str, *, previewable: bool = False) -> None:
        """A rule matched by its verbs alone (`verbs.toml`): no code of its own."""
        self.rules.append(Rule(rule_id, self.category, level, description, None, previewable, declared=True))

    def signal(self, rule_id: str, level: RuleLevel, description: str) -> None:
        """A rule raised by the walker rather than matched on an invocation."""
        self.rules.append(Rule(rule_id, self.category, level, description))


def written_match(inv: Invocation, target: Target, content: Content | None = None) -> str | None:
    """`tee writes ~/.bashrc: why` for the first file `inv` writes (`written_files`: redirections,
    the table's `writes`, in-place edits) that is in the class `target`, given `content`."""
    for field, kind in written_files(inv):
        why = target(inv, field)
        if why is not None and (content is None or content(inv, output_of(inv).text)):
            # Where a `cd` moved the command, the file is shown where it lands (`/etc/sudoers`).
            shown = field.shown() if inv.cwd is None else resolve(field.text, inv.cwd).shown()
            return f"{inv.name} {kind}s {shown}: {why}"
    return None


def shown(field: Field) -> str:
    return field.shown()


__all__ = ["Content", "Matcher", "Options", "Rule", "RuleSet", "Target", "options", "shown", "written_match"]
