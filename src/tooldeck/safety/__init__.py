"""Shell safety: analysing the commands an agent wants to run, and running them in a sandbox.

`analyse_command(text)` answers with a `Verdict`: `block`, `approve` or `safe`, the rule that
decided and why. A `ShellPolicy` moves rules or whole categories between `block` and `approve`.
`normalise_command` gives the form an approval grant is bound to. Nothing here imports the
parser until a command is analysed.

By responsibility: `analysis/` reads a command (parsing, expansion, wrappers, interpreters' code,
hooks, data flows) down to the invocations the rules judge; `knowledge/` is what the analyser
knows (the table of programs, `programs.toml`, and the rules with their examples); `sandbox/`
runs commands confined (the runners in `sandbox/bubblewrap.py`, seccomp, the rootless launcher,
the copy-on-write view, limits, the probe).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck.errors import ShellPolicyError
    from tooldeck.safety.analyse import analyse_command
    from tooldeck.safety.normalise import normalise_command
    from tooldeck.safety.policy import ShellPolicy
    from tooldeck.safety.shellcheck import commands_from, shell_check_lines
    from tooldeck.safety.verdict import Finding, Verdict

_EXPORTS = {
    "analyse_command": "tooldeck.safety.analyse",
    "normalise_command": "tooldeck.safety.normalise",
    "ShellPolicy": "tooldeck.safety.policy",
    "ShellPolicyError": "tooldeck.errors",
    "commands_from": "tooldeck.safety.shellcheck",
    "shell_check_lines": "tooldeck.safety.shellcheck",
    "Finding": "tooldeck.safety.verdict",
    "Verdict": "tooldeck.safety.verdict",
}

__all__ = [
    "Finding",
    "ShellPolicy",
    "ShellPolicyError",
    "Verdict",
    "analyse_command",
    "commands_from",
    "normalise_command",
    "shell_check_lines",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tooldeck.safety' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
