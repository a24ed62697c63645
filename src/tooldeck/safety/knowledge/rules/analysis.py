"""When the analysis itself cannot vouch for a command: it does not parse, is too large or too
deeply nested, contains characters a shell cannot receive, or the analyser failed. These are at
least `approve` and never `safe`: the policy may raise them to `block`, not lower them."""

from __future__ import annotations

from tooldeck.safety.knowledge.rules.base import RuleSet

rules = RuleSet("unanalysable")
rules.signal("parse-error", "approve", "the command is not valid shell syntax, so what it runs is unknown")
rules.signal("nested-unparseable", "approve", "code run by sh -c, eval or an interpreter does not parse")
rules.signal("input-too-large", "approve", "the command is larger than the analyser reads")
rules.signal("too-complex", "approve", "the command is nested too deeply or needs too much work to analyse")
rules.signal(
    "unsupported-characters",
    "approve",
    "the command contains a NUL, bytes that are not UTF-8, or unpaired surrogates",
)
rules.signal("analyser-error", "approve", "the analyser failed on this command")
