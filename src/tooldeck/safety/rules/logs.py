"""History and log wiping: shell history, /var/log, the journal, and the audit system."""

from __future__ import annotations

import re

from tooldeck.safety.effects import emptied_files
from tooldeck.safety.model import Invocation
from tooldeck.safety.paths import classify
from tooldeck.safety.rules.base import RuleSet
from tooldeck.safety.rules.deletion import deletion_targets
from tooldeck.safety.rules.system import service_actions

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
    if inv.name == "history" and any(w in ("-c", "-w") for w in inv.arg_texts()):
        return f"history {' '.join(inv.arg_texts())} clears the shell history"
    path = _wiped(inv, "history")
    return f"{inv.name} destroys the shell history {path}" if path else None


@rules.rule(
    "wipe-logs", "approve", "deletes, truncates or edits system logs under /var/log, or vacuums the journal"
)
def _logs(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name == "journalctl" and any(w.startswith("--vacuum") for w in words):
        return f"journalctl {' '.join(words)} deletes journal entries"
    path = _wiped(inv, "log")
    return f"{inv.name} destroys the system log {path}" if path else None


_AUDIT_UNITS = re.compile(r"(auditd|rsyslog|syslog-ng|syslog|systemd-journald|journald)(\.service)?")


@rules.rule("disable-audit", "approve", "turns auditing or system logging off")
def _audit(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name == "auditctl" and (words[:2] == ["-e", "0"] or "-D" in words):
        return f"auditctl {' '.join(words)} stops kernel auditing"
    for action, unit in service_actions(inv):
        if _AUDIT_UNITS.fullmatch(unit):
            return f"{action} of {unit} stops recording what happens"
    return None
