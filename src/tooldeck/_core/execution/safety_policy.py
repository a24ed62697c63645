"""The built-in policy: shell commands analysed, destructive tools asked about.

- A tool that runs shell commands (`shell=True`, or DeerFlow's `group: bash`) has its `command`
  argument analysed as shell, or its `code` argument as the Python program it runs (as
  `python3 -c` would). A `block` verdict is refused whatever the mode, the approver or a grant
  says; an `approve` verdict needs consent, bound to the rules that fired and to the normalised
  command (the exact code); a safe command runs. Every verdict goes to the audit log. A shell
  tool with neither argument needs consent on every call: what it runs cannot be analysed.
- A tool marked `requires_approval`, or `destructive` (MCP's `destructiveHint`), needs consent.

"Needs consent" follows the tool's approval mode: `approvals.tools` (exact name, then the first
matching glob), else the tool's own `approval` (the built-in workspace file edits say allow; an
MCP server configured with `approval: never` says allow for its tools), else `approvals.mode`:
ask, deny, or allow.
"""

from __future__ import annotations

import fnmatch
import shlex
from functools import lru_cache
from typing import TYPE_CHECKING

from tooldeck._core.config import ApprovalMode, CoreConfig
from tooldeck._core.execution.policy import ALLOW, Decision
from tooldeck._core.execution.types import ValidatedCall
from tooldeck._core.tool import Tool

if TYPE_CHECKING:
    from tooldeck.safety.policy import ShellPolicy
    from tooldeck.safety.verdict import Finding, Verdict


def needs_decision(tool: Tool) -> bool:
    """Whether this policy has anything to say about calls of `tool` (the rest run unasked)."""
    return tool.requires_approval or tool.destructive is True or tool.runs_shell


@lru_cache(maxsize=32)
def _shell_policy(block: tuple[str, ...], approve: tuple[str, ...]) -> ShellPolicy:
    from tooldeck.safety.policy import ShellPolicy

    return ShellPolicy.of(block=block, approve=approve)


class SafetyPolicy:
    """Decides from the config's `approvals` and `shell` sections (cheap to build per executor)."""

    def __init__(self, config: CoreConfig) -> None:
        self.mode: ApprovalMode = config.approvals.mode
        self.tool_modes = dict(config.approvals.tools)
        self.block = tuple(config.shell.block)
        self.approve = tuple(config.shell.approve)

    def mode_for(self, tool: Tool) -> tuple[ApprovalMode, str]:
        """The approval mode of `tool` and the setting it comes from."""
        name = tool.name
        if name in self.tool_modes:
            return self.tool_modes[name], f"approvals.tools[{name!r}]"
        for pattern, mode in self.tool_modes.items():
            if fnmatch.fnmatchcase(name, pattern):
                return mode, f"approvals.tools[{pattern!r}]"
        if tool.approval is not None:
            return tool.approval, f"the tool's own approval setting ({tool.owner or tool.source})"
        return self.mode, "approvals.mode"

    async def decide(self, call: ValidatedCall) -> Decision:
        tool = call.tool
        if tool.runs_shell:
            return self._shell(call)
        if tool.requires_approval:
            return self._consent(
                tool, f"tool {tool.name!r} requires approval", f"requires_approval:{tool.name}"
            )
        if tool.destructive is True:
            reason = f"tool {tool.name!r} is marked destructive"
            return self._consent(tool, reason, f"destructive:{tool.name}")
        return ALLOW

    def _consent(self, tool: Tool, reason: str, rule: str | None, subject: str | None = None) -> Decision:
        mode, source = self.mode_for(tool)
        if mode == "allow":
            return Decision("allow", f"{reason}; allowed by {source}", rule, subject, audit=True)
        if mode == "deny":
            return Decision.deny(f"{reason} and {source} is 'deny'", rule, subject)
        return Decision.ask(reason, rule, subject)

    def _shell(self, call: ValidatedCall) -> Decision:
        from tooldeck.safety.analyse import analyse_command
        from tooldeck.safety.normalise import normalise_command

        name = call.tool.name
        command, code = call.arguments.get("command"), call.arguments.get("code")
        policy = _shell_policy(self.block, self.approve)
        if isinstance(command, str):
            what, verdict, subject = "command", analyse_command(command, policy), normalise_command(command)
        elif isinstance(code, str):
            verdict = analyse_command(f"python3 -c {shlex.quote(code)}", policy)
            what, subject = "code", code.strip()
        else:
            why = f"tool {name!r} runs shell commands that cannot be analysed (no command or code argument)"
            return self._consent(call.tool, why, f"shell-tool:{name}")
        if verdict.verdict == "block":
            return Decision.deny(f"blocked {what}: {_why(verdict)}", verdict.rule, subject)
        if verdict.verdict == "safe":
            return Decision("allow", f"{what} analysed: no rule matched", None, subject, audit=True)
        flagged = [f for f in verdict.findings if f.level == "approve"]
        rules = ",".join(sorted({f.rule for f in flagged}))
        return self._consent(
            call.tool, f"{what} needs approval: {_flagged(verdict, flagged)}", rules, subject
        )


def _why(verdict: Verdict) -> str:
    where = ""
    if verdict.subcommand and verdict.subcommand.strip() != verdict.command.strip():
        where = f" (in: {verdict.subcommand})"
    return f"{verdict.reason}{where} [{verdict.rule}]"


def _flagged(verdict: Verdict, flagged: list[Finding]) -> str:
    """Every part a consent would cover, each in full with its rule: one "once" runs them all,
    so the person asked must see them all, however long the command."""
    if len(flagged) <= 1:
        return _why(verdict)
    parts = []
    for n, finding in enumerate(flagged, start=1):
        where = finding.subcommand.strip()
        shown = f" (in: {where})" if where and where != verdict.command.strip() else ""
        parts.append(f"({n}) {finding.reason}{shown} [{finding.rule}]")
    return f"{len(flagged)} parts are flagged, and one answer covers them all: {'; '.join(parts)}"


__all__ = ["SafetyPolicy", "needs_decision"]
