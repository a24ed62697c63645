"""A rule: an id, a category, a default level, and a matcher over one resolved invocation.

Matchers see `Invocation`s, never raw text, so words that are only quoted or echoed cannot
match. Rules whose evidence is not one invocation (a self-spawning function, a parse failure)
have no matcher; the analyser raises them by id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tooldeck.safety.analysis.argv import Options, options
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.verdict import RuleLevel

Matcher = Callable[[Invocation], "str | None"]


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

    def declare(self, rule_id: str, level: RuleLevel, description: str, *, previewable: bool = False) -> None:
        """A rule matched by its verbs alone (`verbs.toml`): no code of its own."""
        self.rules.append(Rule(rule_id, self.category, level, description, None, previewable, declared=True))

    def signal(self, rule_id: str, level: RuleLevel, description: str) -> None:
        """A rule raised by the walker rather than matched on an invocation."""
        self.rules.append(Rule(rule_id, self.category, level, description))


def shown(field: Field) -> str:
    return field.shown()


__all__ = ["Matcher", "Options", "Rule", "RuleSet", "options", "shown"]
