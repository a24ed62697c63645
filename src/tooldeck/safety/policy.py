"""Which level each rule answers with: its default, or what the caller's `block`/`approve` lists say."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from tooldeck.errors import ShellPolicyError
from tooldeck.safety.knowledge.rules import CATEGORIES, RULES_BY_ID, Rule
from tooldeck.safety.verdict import RuleLevel

DEFAULT_MAX_BYTES = 64 * 1024


def unknown_name(name: str) -> str | None:
    """Why `name` is neither a rule id nor a category (with the closest names), or None if it is one."""
    known = set(RULES_BY_ID) | set(CATEGORIES)
    if name in known:
        return None
    close = difflib.get_close_matches(name, sorted(known), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown rule or category {name!r}{hint}"


@dataclass(frozen=True, slots=True)
class ShellPolicy:
    """Levels for the shell analyser's rules.

    `block` and `approve` hold rule ids or categories. A rule named by id wins over its category,
    and `block` wins over `approve` at the same precision. Rules keep their default level
    otherwise (catastrophic ones block, the rest ask for approval). A policy cannot make a rule
    `safe`: an approval grant, bound to the exact command, is the way to let one through.
    Unknown names are errors, so a typo never silently disables a rule.
    """

    block: frozenset[str] = field(default_factory=frozenset)
    approve: frozenset[str] = field(default_factory=frozenset)
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def of(
        cls, *, block: Iterable[str] = (), approve: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES
    ) -> ShellPolicy:
        return cls(frozenset(block), frozenset(approve), max_bytes)

    def __post_init__(self) -> None:
        for list_name, names in (("block", self.block), ("approve", self.approve)):
            for name in sorted(names):
                problem = unknown_name(name)
                if problem is not None:
                    raise ShellPolicyError(f"shell {list_name} list: {problem}")
        both = sorted(self.block & self.approve)
        if both:
            raise ShellPolicyError(
                f"shell rules or categories in both block and approve lists: {', '.join(both)}"
            )
        if self.max_bytes < 1:
            raise ShellPolicyError("shell max_bytes must be positive")

    def level(self, rule: Rule) -> RuleLevel:
        if rule.id in self.block:
            return "block"
        if rule.id in self.approve:
            return "approve"
        if rule.category in self.block:
            return "block"
        if rule.category in self.approve:
            return "approve"
        return rule.level


DEFAULT_POLICY = ShellPolicy()
