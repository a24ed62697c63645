"""Every rule, by category. A rule's id is stable: policies and approval grants name it."""

from __future__ import annotations

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
from tooldeck.safety.knowledge.rules.base import Rule

# Order matters only for ties: among findings of the same level, the first rule here decides.
ALL_RULES: tuple[Rule, ...] = tuple(
    rule
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

__all__ = ["ALL_RULES", "CATEGORIES", "MATCHING_RULES", "RULES_BY_ID", "Rule"]
