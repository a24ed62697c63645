"""The analyser's typed answers: a `Finding` per rule that fired, one `Verdict` per command."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["safe", "approve", "block"]
RuleLevel = Literal["approve", "block"]

LEVEL_RANK: dict[Level, int] = {"safe": 0, "approve": 1, "block": 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule that fired on one resolved sub-command."""

    rule: str
    category: str
    level: RuleLevel
    reason: str
    # The resolved sub-command the rule saw, e.g. "rm -rf ~" for `a=rm; $a -rf ~`.
    subcommand: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision for one command: the most severe finding, or `safe` when none fired.

    `rule`, `category` and `subcommand` describe the finding that decided the verdict; `findings`
    holds every finding (most severe first), so an approval can be bound to each rule.
    """

    verdict: Level
    rule: str | None
    category: str | None
    reason: str
    command: str
    subcommand: str | None = None
    findings: tuple[Finding, ...] = ()

    @classmethod
    def from_findings(cls, command: str, findings: list[Finding]) -> Verdict:
        if not findings:
            return cls("safe", None, None, "no rule matched", command)
        ordered = sorted(findings, key=lambda f: -LEVEL_RANK[f.level])
        top = ordered[0]
        return cls(top.level, top.rule, top.category, top.reason, command, top.subcommand, tuple(ordered))

    def as_dict(self) -> dict[str, str | None]:
        """The shape `tooldeck shell-check --json` prints, one object per command."""
        return {"command": self.command, "verdict": self.verdict, "rule": self.rule, "reason": self.reason}
