"""Commands run through a hook: an option, a script or a setting of another program.

sed's `e`, tar's `--checkpoint-action=exec=` and `--to-command`, make reading recipes from
standard input, an editor's or a database shell's `!`, git settings that hold a command
(`core.sshCommand`, `core.pager`, `alias.x='!...'`, `core.fsmonitor`, `core.hooksPath`),
`ssh -o ProxyCommand=`, `rsync -e`, netcat `-e`, `at` jobs and variables such as
`GIT_SSH_COMMAND`, `PAGER` or `LD_PRELOAD`. The command itself is analysed like any other; the
hook asks for approval unless it names the program it usually holds (ssh, gzip, less, vim).
"""

from __future__ import annotations

from tooldeck.safety.hooks import hooks_of
from tooldeck.safety.model import Invocation
from tooldeck.safety.rules.base import RuleSet

rules = RuleSet("command_hooks")


@rules.rule(
    "exec-hook",
    "approve",
    "a program runs a command through a hook (sed e, tar --checkpoint-action, make -f -, vim -c '!', "
    "git -c core.sshCommand, ssh -o ProxyCommand, PAGER/EDITOR/LD_PRELOAD variables)",
)
def _hook(inv: Invocation) -> str | None:
    for hook in hooks_of(inv):
        if hook.usual:
            continue
        if hook.code:
            detail = f": {hook.code.strip()[:80]}"
        elif hook.argv:
            detail = ": " + " ".join(a.shown() for a in hook.argv)[:80]
        else:
            detail = ""
        return f"{inv.name} runs {hook.what} ({hook.via}){detail}"
    return None
