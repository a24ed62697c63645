"""History and log wiping: shell history, /var/log, the journal, and the audit system."""

from __future__ import annotations

import itertools
import re

from tooldeck.safety.analysis.effects import emptied_files
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.paths import classify
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.rules.deletion import deletion_targets
from tooldeck.safety.knowledge.rules.system import service_actions

rules = RuleSet("history_log_wiping")


def _wiped(inv: Invocation, kind: str) -> str | None:
    targets = [f for f in emptied_files(inv)] + [f for f, _r in deletion_targets(inv)]
    for target in targets:
        if classify(target.text, inv.cwd) == kind:
            return target.shown()
    return None


@rules.rule(
    "wipe-history", "approve", "deletes, truncates or redirects shell history (history -c, > ~/.bash_history)"
)
def _history(inv: Invocation) -> str | None:
    # history -c is a verb (verbs.toml); here, turning history off and wiping its file.
    if inv.name == "set" and _turns_off_history(inv.arg_texts()):
        return "set +o history stops the shell recording what runs next"
    path = _wiped(inv, "history")
    return f"{inv.name} destroys the shell history {path}" if path else None


@rules.rule(
    "wipe-logs", "approve", "deletes, truncates or edits system logs under /var/log, or vacuums the journal"
)
def _logs(inv: Invocation) -> str | None:
    # Logs cleared through their own tool (journalctl --vacuum, dmesg -C, lastlog -C) are verbs
    # (verbs.toml); here, log files deleted or emptied by any program.
    path = _wiped(inv, "log")
    return f"{inv.name} destroys the system log {path}" if path else None


def _turns_off_history(words: list[str]) -> bool:
    return any(w == "+o" and nxt == "history" for w, nxt in itertools.pairwise(words))


rules.signal(
    "disable-history",
    "approve",
    "stops the shell keeping history (unset HISTFILE, HISTFILE=/dev/null, HISTSIZE=0)",
)

_AUDIT_UNITS = re.compile(r"(auditd|rsyslog|syslog-ng|syslog|systemd-journald|journald)(\.service)?")


@rules.rule("disable-audit", "approve", "turns auditing or system logging off")
def _audit(inv: Invocation) -> str | None:
    # auditctl -e 0 and the cloud audit trails are verbs (verbs.toml); here, the audit services.
    for action, unit in service_actions(inv):
        if _AUDIT_UNITS.fullmatch(unit):
            return f"{action} of {unit} stops recording what happens"
    return None
