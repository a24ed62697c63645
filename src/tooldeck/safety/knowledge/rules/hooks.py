"""Commands run through a hook: an option, a script or a setting of another program.

sed's `e`, tar's `--checkpoint-action=exec=` and `--to-command`, make reading recipes from
standard input, an editor's or a database shell's `!`, git settings that hold a command
(`core.sshCommand`, `core.pager`, `alias.x='!...'`, `core.fsmonitor`, `core.hooksPath`),
`ssh -o ProxyCommand=`, `rsync -e`, netcat `-e`, `at` jobs and variables such as
`GIT_SSH_COMMAND`, `PAGER` or `LD_PRELOAD`. The command itself is analysed like any other. The
hook asks for approval unless it names the program it usually holds (ssh, gzip, less, vim), or
runs here and now a command the analysis reads in full (`make -f -` with the recipe `echo hi`,
`tar --to-command=sha256sum`): then nothing hides in it. A hook stays hidden when what it runs
is not known (sed's `s///e`, `LD_PRELOAD`), when it is stored for later (`git config`, `at`), or
when it starts a shell, an interpreter or a script file, whose code a hook line hides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck.safety.analysis.hook_types import Hook, program_of
from tooldeck.safety.analysis.hooks import hooks_of
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.parser import ParseFailure, node_text, parse
from tooldeck.safety.analysis.programs import language_of
from tooldeck.safety.knowledge.rules.base import RuleSet

if TYPE_CHECKING:
    from tree_sitter import Node

rules = RuleSet("command_hooks")

_CODE_RUNNERS = frozenset({"eval", "source", ".", "exec", "xargs", "env", "nohup", "setsid", "watch"})
_SYSTEM_DIRS = ("/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/")


@rules.rule(
    "exec-hook",
    "approve",
    "a program runs a command through a hook (sed e, tar --checkpoint-action, make -f -, vim -c '!', "
    "git -c core.sshCommand, ssh -o ProxyCommand, PAGER/EDITOR/LD_PRELOAD variables)",
)
def _hook(inv: Invocation) -> str | None:
    for hook in hooks_of(inv):
        if hook.usual or _in_plain_sight(hook):
            continue
        if hook.code:
            detail = f": {hook.code.strip()[:80]}"
        elif hook.argv:
            detail = ": " + " ".join(a.shown() for a in hook.argv)[:80]
        else:
            detail = ""
        return f"{inv.name} runs {hook.what} ({hook.via}){detail}"
    return None


def _in_plain_sight(hook: Hook) -> bool:
    """Does the hook run now a command the analysis reads in full, one that is no shell,
    interpreter or script (whose code the hook would hide)?"""
    if hook.later or hook.language != "shell":
        return False
    if hook.argv is not None:
        if not hook.argv or not all(a.exact for a in hook.argv):
            return False
        return _plain_program(hook.argv[0].text)
    if not hook.code or not hook.code.strip():
        return False
    try:
        root = parse(hook.code)
    except ParseFailure:
        return False
    programs = [program_of(node_text(n), path=True) for n in _commands(root)]
    return bool(programs) and all(_plain_program(p) for p in programs)


def _plain_program(name: str) -> bool:
    if not name or name.startswith(("$", "`", "~")):
        return False
    if "/" in name and not name.startswith(_SYSTEM_DIRS):
        return False
    base = name.rsplit("/", 1)[-1]
    return language_of(base) is None and base not in _CODE_RUNNERS


def _commands(root: Node) -> list[Node]:
    stack = [root]
    out: list[Node] = []
    while stack:
        node = stack.pop()
        if node.type == "command":
            out.append(node)
        stack.extend(node.children)
    return out
