"""When interpreter code starts a program by name but computes its arguments.

`exec "/bin/sh", "-c", $c`, `os.execv('/bin/sh', ['sh', '-c', cmd])`, `spawnSync('sh', ['-c', c])`,
`system("sh", "-c", c)`, `pcntl_exec('/bin/sh', ['-c', $c])`: the program is a literal but what
it is told to do is built at run time (from `chr` codes, a decoder, the network), so reading the
code cannot settle what runs. Such a call is settled only when the program and every argument are
literals (numbers, and lists of literals, included); keyword options (`cwd=`, `chdir:`) do not
count, since they do not say what runs.
"""

from __future__ import annotations

import re

from tooldeck.safety.analysis.interpreter_skeleton import Skeleton, call_args, skeleton
from tooldeck.safety.analysis.programs import Language

# Calls that start a program from a list of words, per language; `first` limits the check to the
# leading arguments (the program and its argument vector) where later ones are options.
_CALLS: dict[Language, tuple[tuple[re.Pattern[str], int], ...]] = {
    "python": (
        (re.compile(r"(?<![\w.])os\.(?:exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)\s*\("), 0),
        (re.compile(r"(?<![\w.])pty\.spawn\s*\("), 1),
    ),
    "node": ((re.compile(r"(?<![\w$])(?:execFileSync|execFile|spawnSync|spawn)\s*\("), 2),),
    "perl": ((re.compile(r"(?<![\w$@%&>])(?:system|exec)\b\s*"), 0),),
    "ruby": ((re.compile(r"(?<![\w.])(?:system|exec|spawn|Process\.spawn|IO\.popen|Open3\.\w+)\b\s*"), 0),),
    "php": ((re.compile(r"(?<![\w>$])(?:pcntl_exec|proc_open)\s*\("), 2),),
}
_NAMES_ALLOWED = re.compile(r"(?:os\.P_\w+|os\.environ|sys\.executable|None|True|False|nil|\d+(?:\.\d+)?)")


def computed_arguments(language: Language, code: str) -> str | None:
    """Why a program started by `code` runs with arguments computed at run time, or None."""
    calls = _CALLS.get(language)
    if calls is None:
        return None
    sk = skeleton(language, code)
    if language == "node" and not any("child_process" in lit for lit in sk.literals):
        return None
    for pattern, first in calls:
        for match in pattern.finditer(sk.text):
            args = _arguments(sk, match.end())
            if first:
                args = args[:first]
            if any(not _settled(sk, a, language) for a in args):
                return "starts a program with arguments computed at run time"
    return None


# Perl's `open(FH, "-|", CMD...)` and `open(FH, "CMD |")`, Ruby's `open("| CMD")`: a piped open.
_PIPE_OPEN = re.compile(r"(?<![\w.$>])open\b\s*")
_PIPE_MODE = re.compile(r"\s*(?:-\||\|-)\s*")


def pipe_open_commands(language: Language, code: str) -> tuple[list[str], bool]:
    """Commands a piped `open` runs, as shell text, and whether one of them is computed."""
    if language not in ("perl", "ruby"):
        return [], False
    sk = skeleton(language, code)
    commands: list[str] = []
    computed = False
    for match in _PIPE_OPEN.finditer(sk.text):
        args = [a.strip() for a in _arguments(sk, match.end())]
        if language == "perl" and len(args) > 2:
            mode = sk.literal(args[1])
            if mode is None or not _PIPE_MODE.fullmatch(mode):
                continue
            values = [sk.literal(a) for a in args[2:]]
            if any(v is None for v in values):
                computed = True
            else:
                commands.append(" ".join(v for v in values if v is not None))
            continue
        target = args[1] if language == "perl" and len(args) == 2 else args[0] if args else ""
        value = sk.literal(target)
        if value is not None and (value.lstrip().startswith("|") or value.rstrip().endswith("|")):
            commands.append(value.strip().strip("|").strip())
        elif re.fullmatch(r"\x02\d+\x02", target):
            raw = sk.literals[int(target[1:-1])]
            computed = computed or raw.lstrip().startswith("|") or raw.rstrip().endswith("|")
    # A shell at the other end of the pipe runs whatever the code prints into it.
    computed = computed or any(_SHELL_READING.match(c) for c in commands)
    return commands, computed


_SHELL_READING = re.compile(r"(?:/usr)?(?:/bin/)?(?:sh|bash|dash|zsh|ksh)(?:\s+-[a-z]*s?)*\s*$")


def _arguments(sk: Skeleton, pos: int) -> list[str]:
    """The arguments of the call at `pos`: in parentheses, or (Perl, Ruby) up to the statement's end."""
    text = sk.text
    if text[pos : pos + 1] == "(":
        return call_args(text, pos)
    end = pos
    depth = 0
    while end < len(text):
        ch = text[end]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (ch in ";\n" or re.match(r"\s(?:if|unless|or|and|while|until)\b", text[end:])):
            break
        end += 1
    body = text[pos:end].strip()
    return call_args(f"({body})", 0) if body else []


def _settled(sk: Skeleton, arg: str, language: Language) -> bool:
    arg = arg.strip()
    if not arg or sk.literal(arg) is not None or _NAMES_ALLOWED.fullmatch(arg):
        return True
    if re.fullmatch(r"\*{0,2}[A-Za-z_]\w*\s*=(?!=).*|\w+:\s.*|:\w+\s*=>.*", arg, re.S):
        return True  # a keyword option (`cwd=...`, `chdir: ...`)
    if language == "perl" and re.fullmatch(r"qw\s*[(\[{/<][^)\]}/>]*[)\]}/>]", arg):
        return True
    if arg[:1] in "[(" and arg[-1:] in "])":
        inner = arg[1:-1].strip()
        return not inner or all(_settled(sk, item, language) for item in call_args(f"({inner})", 0))
    return False
