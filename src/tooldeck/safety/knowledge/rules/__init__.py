"""Every rule, by category. A rule's id is stable: policies and approval grants name it.

A rule's facts come first from the verb table (`verbs.toml`: which command of which program has
the rule's effect), then from its module's own matcher for what a verb cannot say (paths,
refspecs, mounts); one engine, `_with_verbs`, joins the two.
"""

from __future__ import annotations

import dataclasses

from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.knowledge.rules import (
    analysis,
    config_files,
    contents,
    database,
    deletion,
    disk,
    forkbomb,
    git,
    hooks,
    infrastructure,
    logs,
    moves,
    obfuscation,
    permissions,
    registry_files,
    remote,
    remote_stdin,
    secret_transfers,
    secrets,
    system,
    system_state,
    trust,
)
from tooldeck.safety.knowledge.rules.base import Matcher, Rule
from tooldeck.safety.knowledge.verbs import FACTS, verb_match, verbs


def _with_verbs(rule: Rule) -> Rule:
    """`rule` matching its verbs first, then its own matcher (if it has one)."""
    if rule.id not in verbs().effects():
        if rule.declared:  # pragma: no cover - a programming error caught at import
            raise RuntimeError(f"the rule {rule.id!r} is declared for verbs, but verbs.toml has none")
        return rule
    own = rule.match

    def match(inv: Invocation) -> str | None:
        return verb_match(rule.id, inv) or (own(inv) if own is not None else None)

    matcher: Matcher = match
    return dataclasses.replace(rule, match=matcher)


# Order matters only for ties: among findings of the same level, the first rule here decides.
ALL_RULES: tuple[Rule, ...] = tuple(
    _with_verbs(rule)
    for module in (
        forkbomb,
        disk,
        deletion,
        moves,
        contents,
        git,
        logs,
        permissions,
        remote,
        remote_stdin,
        secrets,
        secret_transfers,
        database,
        infrastructure,
        config_files,
        registry_files,
        trust,
        system,
        system_state,
        obfuscation,
        hooks,
        analysis,
    )
    for rule in module.rules.rules
)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in ALL_RULES}
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(rule.category for rule in ALL_RULES))
MATCHING_RULES: tuple[Rule, ...] = tuple(rule for rule in ALL_RULES if rule.match is not None)

if len(RULES_BY_ID) != len(ALL_RULES):  # pragma: no cover - a programming error caught at import
    raise RuntimeError("two safety rules share an id")
_UNKNOWN_EFFECTS = verbs().effects() - set(RULES_BY_ID) - FACTS
if _UNKNOWN_EFFECTS:  # pragma: no cover - a table error caught at import
    raise RuntimeError(f"verbs.toml names effects that are no rule: {sorted(_UNKNOWN_EFFECTS)}")

__all__ = ["ALL_RULES", "CATEGORIES", "MATCHING_RULES", "RULES_BY_ID", "Rule"]
