"""Programs whose job is to run another command: package runners (`npx rimraf ~`), `cmake -E`,
file watchers (`entr`, `watchexec`, `nodemon --exec`), terminal multiplexers (`tmux new -d CMD`,
`tmux send-keys`, `screen -dm CMD`) and `ip netns exec`.

What they run is analysed like any command; running it is what these programs are for, so
the hook itself needs no approval.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tooldeck.safety.analysis.argv import word_operands
from tooldeck.safety.analysis.hook_types import Hook
from tooldeck.safety.analysis.model import HOME_MARK, Field, Invocation
from tooldeck.safety.knowledge.table import command_fields, programs, value_options_of
from tooldeck.safety.knowledge.wrappers import package_command


def _package_runner(inv: Invocation) -> list[Hook]:
    """What a package runner of the table runs: `npx PKG ARGS`, `pipx run PKG`, `poetry run CMD`."""
    runner = programs().runners.get(inv.name)
    if runner is None:
        return []
    words = inv.arg_texts()
    calls = [words[i + 1] for i, w in enumerate(words[:-1]) if w in runner.call_options]
    if calls:
        return [Hook(f"{inv.name} --call", code=c, usual=True) for c in calls]
    argv = package_command(inv.argv, programs())
    return [Hook(f"{inv.name} {argv[0].text}", argv=argv, usual=True)] if argv else []


_CMAKE_REMOVALS = {"rm": None, "remove": "-f", "remove_directory": "-rf"}


def _cmake(inv: Invocation) -> list[Hook]:
    words = list(inv.args)
    if len(words) < 2 or words[0].text != "-E" or words[1].text not in _CMAKE_REMOVALS:
        return []
    flags = _CMAKE_REMOVALS[words[1].text]
    argv = (Field("rm"), *([Field(flags)] if flags else []), *words[2:])
    return [Hook("cmake -E", argv=argv, usual=True)]


def _watcher(inv: Invocation) -> list[Hook]:
    args = list(inv.args)
    words = [a.text for a in args]
    if inv.name == "nodemon":
        return [
            Hook("nodemon --exec", code=words[i + 1], usual=True)
            for i, w in enumerate(words[:-1])
            if w in ("--exec", "-x")
        ]
    if inv.name == "watchexec" and "--" in words:
        return [Hook("watchexec", argv=tuple(args[words.index("--") + 1 :]), usual=True)]
    if inv.name == "watchexec":
        operands = [w for w in words if not w.startswith("-")]
        return [Hook("watchexec", code=operands[-1], usual=True)] if operands else []
    # entr: options, then the command's words; -s runs its one argument with $SHELL.
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 1
    shell = any(w.startswith("-") and "s" in w for w in words[:i])
    rest = args[i:]
    if not rest:
        return []
    return (
        [Hook("entr", code=rest[0].text, usual=True)]
        if shell
        else [Hook("entr", argv=tuple(rest), usual=True)]
    )


_TMUX_RUNS = frozenset(
    {
        "new",
        "new-session",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
    }
)
_TMUX_VALUE = frozenset({"-s", "-n", "-t", "-c", "-e", "-x", "-y", "-F", "-l", "-f", "-L", "-S"})
_KEY_NAMES = frozenset({"Enter", "C-m", "KPEnter", "C-j", "Space", "Tab", "Escape"})


def _tmux(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    if not words:
        return []
    command, rest = words[0], words[1:]
    if command in ("send-keys", "send"):
        keys = [w for w in word_operands(rest, _TMUX_VALUE) if w not in _KEY_NAMES]
        return [Hook("tmux send-keys", code=" ".join(keys), usual=True)] if keys else []
    if command in ("run-shell", "run"):
        operands = word_operands(rest, _TMUX_VALUE)
        return [Hook("tmux run-shell", code=operands[0], usual=True)] if operands else []
    if command in _TMUX_RUNS:
        operands = word_operands(rest, _TMUX_VALUE)
        return [Hook(f"tmux {command}", code=" ".join(operands), usual=True)] if operands else []
    return []


def _screen(inv: Invocation) -> list[Hook]:
    args = list(inv.args)
    words = [a.text for a in args]
    stuffed = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "stuff"]
    if stuffed:
        return [
            Hook("screen stuff", code=s.replace("\\n", "\n").replace("^M", "\n"), usual=True) for s in stuffed
        ]
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-S", "-c", "-L", "-Logfile", "-p", "-T", "-h", "-e", "-X") else 1
    rest = tuple(args[i:])
    return [Hook("screen", argv=rest, usual=True)] if rest else []


def _ip(inv: Invocation) -> list[Hook]:
    args = list(inv.args)
    words = [a.text for a in args]
    if words[:2] == ["netns", "exec"] and len(args) > 3:
        return [Hook("ip netns exec", argv=tuple(args[3:]), usual=True)]
    return []


def _ansible(inv: Invocation) -> list[Hook]:
    """`ansible HOSTS -m shell -a CMD` runs CMD; `-m file -a 'path=P state=absent'` deletes P."""
    words = inv.arg_texts()
    module = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-m", "--module-name")), "command")
    arguments = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-a", "--args")]
    out: list[Hook] = []
    for text in arguments:
        if module.rsplit(".", 1)[-1] in ("shell", "command", "raw", "script"):
            out.append(Hook(f"ansible -m {module}", code=text, usual=True))
        elif module.rsplit(".", 1)[-1] == "file" and re.search(r"\bstate=absent\b", text):
            path = re.search(r"\b(?:path|dest|name)=(\S+)", text)
            if path:
                target = (
                    path.group(1).replace("~", HOME_MARK, 1)
                    if path.group(1).startswith("~")
                    else path.group(1)
                )
                out.append(
                    Hook("ansible -m file", argv=(Field("rm"), Field("-rf"), Field(target)), usual=True)
                )
    return out


# Programs that run a command in a container, pod or machine (`docker exec C CMD`, `kubectl exec
# POD -- CMD`, `lxc exec C -- CMD`): the table's classes; engines name the command without `--`.
_ENGINES = programs().in_class("container-engine") | programs().in_class("container-compose")
_EXECUTORS = _ENGINES | programs().in_class("cluster-client") | {"lxc", "incus"}


def _container_exec(inv: Invocation) -> list[Hook]:
    """`docker exec C CMD`, `docker compose exec|run S CMD`, `kubectl exec POD -- CMD`,
    `lxc exec C -- CMD`: CMD runs in the container, against whatever it reaches (a database...)."""
    given = command_fields(inv.name, inv.args)[0]  # past `docker -H x`, `kubectl -n x`
    args = list(inv.args)
    words = [a.text for a in args]
    i = len(given)
    if words[i : i + 1] == ["compose"]:
        i += 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in value_options_of(inv.name) else 1
    if (
        i >= len(words)
        or words[i] not in ("exec", "run")
        or (
            words[i] == "run"
            and inv.name not in programs().in_class("container-compose")
            and "compose" not in words[:i]
        )
    ):
        return []
    rest = words[i + 1 :]
    if "--" in rest:
        start = i + 1 + rest.index("--") + 1
    elif inv.name not in _ENGINES:
        return []
    else:
        j = 0
        while j < len(rest) and rest[j].startswith("-"):
            j += 2 if rest[j] in value_options_of(inv.name) else 1
        start = i + 1 + j + 1  # past the container's or service's name
    argv = tuple(args[start:])
    return [Hook(f"{inv.name} exec", argv=argv, usual=True)] if argv else []


RUNNERS: dict[str, Callable[[Invocation], list[Hook]]] = {
    **dict.fromkeys(programs().runners, _package_runner),
    "cmake": _cmake,
    "nodemon": _watcher,
    "watchexec": _watcher,
    "entr": _watcher,
    "tmux": _tmux,
    "screen": _screen,
    "ip": _ip,
    "ansible": _ansible,
    **dict.fromkeys(_EXECUTORS, _container_exec),
}
