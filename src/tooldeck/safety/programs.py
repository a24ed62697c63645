"""What a command line really runs: wrappers peeled off, and where a shell or interpreter gets code.

`sudo env -i timeout 5 /bin/rm -rf ~` runs `rm -rf ~`; `busybox rm` runs `rm`; `bash -c CODE`,
`eval`, `python -c CODE`, `perl -e`, `awk PROGRAM`, `bash` reading a pipe and `source FILE` run
code from an argument, standard input or a file, which the walker then analyses in turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tooldeck.safety.model import Field, Taint

SHELLS = frozenset(
    [
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "ash",
        "fish",
        "yash",
        "posh",
        "rbash",
        "tcsh",
        "csh",
        "lksh",
        "oksh",
    ]
)
Language = Literal["shell", "python", "perl", "ruby", "node", "php", "awk", "lua"]
Origin = Literal["arg", "stdin", "file"]

# Wrappers whose options take a value, so the value is not mistaken for the wrapped command.
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "sudo": frozenset(
        [
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-U",
            "-T",
            "-R",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--chdir",
            "--role",
            "--type",
        ]
    ),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir", "-P", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "taskset": frozenset({"-c"}),
    "chrt": frozenset(),
    "exec": frozenset({"-a"}),
    "runuser": frozenset({"-u", "-g", "-G", "--user", "--group"}),
    "systemd-run": frozenset(
        {"-u", "--unit", "-p", "--property", "--uid", "--gid", "-E", "--setenv", "--slice"}
    ),
    "nsenter": frozenset({"-t", "--target", "-S", "-G"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "xvfb-run": frozenset({"-n", "-s", "-f", "--server-num", "--server-args", "--auth-file"}),
    "firejail": frozenset(),
}
SIMPLE_WRAPPERS = frozenset(
    [
        "nohup",
        "time",
        "command",
        "builtin",
        "setsid",
        "unbuffer",
        "eatmydata",
        "fakeroot",
        "catchsegv",
        "torsocks",
        "proxychains",
        "proxychains4",
        "caffeinate",
        "pkexec",
        "run0",
        "unshare",
        "dbus-launch",
        "dbus-run-session",
    ]
)
WRAPPERS = SIMPLE_WRAPPERS | frozenset(_VALUE_OPTIONS) | {"busybox", "toybox", "chroot"}


@dataclass(frozen=True, slots=True)
class Unwrapped:
    argv: tuple[Field, ...]
    wrappers: tuple[str, ...]
    privileged: bool
    # A root shell asked for with no command (`sudo -i`, `sudo -s`, `su`, `doas -s`).
    root_shell: bool = False
    # Variables the wrappers set for the program (`env X=1`, `sudo X=1`).
    env: tuple[tuple[str, Field], ...] = ()


def basename(field: Field) -> str:
    return field.text.rsplit("/", 1)[-1]


def unwrap(argv: tuple[Field, ...]) -> Unwrapped:
    """Peel wrapper programs until the program that does the work is first."""
    wrappers: list[str] = []
    env: list[tuple[str, Field]] = []
    privileged = False
    root_shell = False
    current = argv
    for _ in range(16):
        if not current:
            break
        name = basename(current[0])
        if name not in WRAPPERS or (name == "command" and _command_lookup(current)):
            break
        rest, as_root, shell = _peel_one(name, current[1:])
        if name in ("env", "sudo", "doas"):
            env += _assignments(current[1 : len(current) - len(rest)])
        if name in ("sudo", "doas", "pkexec", "run0", "runuser", "chroot") and as_root:
            privileged = True
        root_shell = root_shell or (shell and not rest)
        wrappers.append(name)
        current = rest
    return Unwrapped(current, tuple(wrappers), privileged, root_shell, tuple(env))


_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)


def _assignments(words: tuple[Field, ...]) -> list[tuple[str, Field]]:
    out: list[tuple[str, Field]] = []
    for word in words:
        match = _ASSIGNMENT.fullmatch(word.text)
        if match:
            out.append((match.group(1), Field(match.group(2), word.exact, word.taint)))
    return out


def _command_lookup(argv: tuple[Field, ...]) -> bool:
    """`command -v NAME` only looks a program up."""
    return any(a.text in ("-v", "-V") for a in argv[1:2])


def _peel_one(name: str, args: tuple[Field, ...]) -> tuple[tuple[Field, ...], bool, bool]:
    """The wrapped argv, whether it runs as root, and whether a bare root shell was asked for."""
    if name in ("busybox", "toybox"):
        return args, False, False
    if name == "chroot":
        operands = [i for i, a in enumerate(args) if not a.text.startswith("-")]
        return (args[operands[0] + 1 :] if operands else ()), True, False
    if name == "timeout":
        rest = _skip_options(name, args)
        return rest[1:], False, False  # the first operand is the duration
    if name == "flock":
        rest = _skip_options(name, args)[1:]  # the first operand is the lock file
        if rest[:1] and rest[0].text in ("-c", "--command"):
            return (Field("sh"), Field("-c"), *rest[1:]), False, False
        return rest, False, False
    if name == "taskset":
        rest = _skip_options(name, args)
        cpu_list = any(a.text.startswith("-") and "c" in a.text for a in args[: len(args) - len(rest)])
        return (rest if cpu_list else rest[1:]), False, False
    if name == "chrt":
        rest = _skip_options(name, args)
        return rest[1:], False, False  # the first operand is the priority
    if name == "env":
        return _peel_env(args), False, False
    rest = _skip_options(name, args)
    if name in ("sudo", "doas"):
        # sudo sets the variables written before the command (`sudo EDITOR=x visudo`).
        while rest and _ASSIGNMENT.fullmatch(rest[0].text):
            rest = rest[1:]
    user = _option_value(args[: len(args) - len(rest)], "-u", "--user")
    as_root = user in (None, "root", "0", "#0")
    shell = name in ("sudo", "doas") and any(
        a.text in ("-i", "-s", "--login", "--shell") for a in args[: len(args) - len(rest)]
    )
    return rest, as_root, shell


def _skip_options(name: str, args: tuple[Field, ...]) -> tuple[Field, ...]:
    takes_value = _VALUE_OPTIONS.get(name, frozenset())
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--":
            return args[i + 1 :]
        if not text.startswith("-") or text == "-":
            break
        if name == "nice" and re.fullmatch(r"-\d+", text):
            i += 1
            continue
        if text in takes_value or (len(text) == 2 and text in takes_value):
            i += 2
            continue
        i += 1
    return args[i:]


def _option_value(args: tuple[Field, ...], short: str, long: str) -> str | None:
    for i, arg in enumerate(args):
        if arg.text in (short, long) and i + 1 < len(args):
            return args[i + 1].text
        if arg.text.startswith(long + "="):
            return arg.text.split("=", 1)[1]
        if arg.text.startswith(short) and len(arg.text) > 2 and not arg.text.startswith("--"):
            return arg.text[2:]
    return None


def _peel_env(args: tuple[Field, ...]) -> tuple[Field, ...]:
    i = 0
    while i < len(args):
        text = args[i].text
        if text in ("-S", "--split-string") and i + 1 < len(args):
            words = tuple(Field(w, args[i + 1].exact, args[i + 1].taint) for w in args[i + 1].text.split())
            return words + args[i + 2 :]
        if text.startswith("-S") and len(text) > 2:
            return tuple(Field(w) for w in text[2:].split()) + args[i + 1 :]
        if text == "--":
            return args[i + 1 :]
        if text in _VALUE_OPTIONS["env"]:
            i += 2
        elif text.startswith("-") or re.match(r"[A-Za-z_][A-Za-z0-9_]*=", text):
            i += 1
        else:
            break
    return args[i:]


@dataclass(frozen=True, slots=True)
class CodeSource:
    """Where a shell or interpreter invocation gets the code it runs."""

    language: Language
    origin: Origin
    code: Field | None = None  # for origin "arg"
    file: Field | None = None  # for origin "file"
    positional: tuple[Field, ...] = ()


def language_of(name: str) -> Language | None:
    if name in SHELLS:
        return "shell"
    if re.fullmatch(r"(python|pypy)(\d+(\.\d+)?)?", name):
        return "python"
    if re.fullmatch(r"perl(\d+(\.\d+)*)?", name):
        return "perl"
    if re.fullmatch(r"ruby(\d+(\.\d+)*)?|jruby", name):
        return "ruby"
    if name in ("node", "nodejs", "bun", "deno"):
        return "node"
    if re.fullmatch(r"php(\d+(\.\d+)*)?", name):
        return "php"
    if name in ("awk", "gawk", "mawk", "nawk"):
        return "awk"
    if re.fullmatch(r"lua(jit|\d+(\.\d+)*)?", name):
        return "lua"
    return None


# Options, per language, that take the code itself, and options that take some other value.
_CODE_OPTIONS: dict[Language, frozenset[str]] = {
    "shell": frozenset({"-c"}),
    "python": frozenset({"-c"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "php": frozenset({"-r"}),
    "awk": frozenset(),
    "lua": frozenset({"-e"}),
}
_VALUE_OPTS: dict[Language, frozenset[str]] = {
    "shell": frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}),
    "python": frozenset({"-W", "-X", "-m", "--check-hash-based-pycs"}),
    "perl": frozenset({"-I", "-M", "-m", "-x"}),
    "ruby": frozenset({"-r", "-I", "-E", "-C", "--encoding"}),
    "node": frozenset({"-r", "--require", "--import", "--loader", "--input-type"}),
    "php": frozenset({"-f", "-c", "-d", "-z"}),
    "awk": frozenset({"-F", "-v", "-f", "--file", "--assign", "--field-separator"}),
    "lua": frozenset({"-l"}),
}
_NO_EXEC = {
    "shell": frozenset({"-n", "--version", "--help"}),
    "python": frozenset({"-m", "--version", "-V", "-h"}),
}


_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def code_source(name: str, args: tuple[Field, ...], *, stdin_piped: bool) -> CodeSource | None:
    """Where `name args...` takes its code from, or None when it runs no code (or is not an interpreter)."""
    if name == "eval":
        return CodeSource("shell", "arg", _joined(args)) if args else None
    if name in ("source", "."):
        if args and args[0].text in _STDIN_FILES:
            return CodeSource("shell", "stdin", positional=args[1:])
        return CodeSource("shell", "file", file=args[0], positional=args[1:]) if args else None
    if name == "deno" and args[:1] and args[0].text == "eval":
        return CodeSource("node", "arg", args[1]) if len(args) > 1 else None
    language = language_of(name)
    if language is None:
        return None
    return _interpreter_source(language, args, stdin_piped=stdin_piped)


def _interpreter_source(
    language: Language, args: tuple[Field, ...], *, stdin_piped: bool
) -> CodeSource | None:
    code_opts, value_opts = _CODE_OPTIONS[language], _VALUE_OPTS[language]
    codes: list[Field] = []
    wants_code = False
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--" or text == "-" or not text.startswith(("-", "+")) or text == "+":
            break
        if text in _NO_EXEC.get(language, frozenset()):
            return None
        if text in value_opts or (language == "awk" and text in ("-f", "--file")):
            if language == "awk" and text in ("-f", "--file"):
                return CodeSource(language, "file", file=args[i + 1] if i + 1 < len(args) else None)
            i += 2
            continue
        short_flags = text[1:] if not text.startswith("--") else ""
        if text in code_opts or _code_cluster(language, short_flags):
            if language == "shell":
                wants_code = True
            elif i + 1 < len(args):
                codes.append(args[i + 1])
                i += 1
        elif language == "shell" and "s" in short_flags:
            return CodeSource(language, "stdin", positional=args[i + 1 :])
        i += 1
    rest = args[i:]
    if rest[:1] and rest[0].text == "--":
        rest = rest[1:]
    if language == "shell" and wants_code:
        return CodeSource(language, "arg", rest[0], positional=rest[1:]) if rest else None
    if codes:
        return CodeSource(language, "arg", _joined(tuple(codes)), positional=rest)
    if language == "awk":
        return CodeSource(language, "arg", rest[0], positional=rest[1:]) if rest else None
    if not rest or rest[0].text in _STDIN_FILES:
        return CodeSource(language, "stdin", positional=rest[1:]) if (stdin_piped or rest) else None
    return CodeSource(language, "file", file=rest[0], positional=rest[1:])


def _code_cluster(language: Language, flags: str) -> bool:
    """Flags run together that end with the code option: `bash -ec`, `python -Bc`, `perl -lne`,
    `ruby -pe` (but not `perl -pie`, where `e` is -i's backup suffix)."""
    if not flags:
        return False
    if language in ("shell", "python"):
        return flags[-1] == "c"
    if language in ("perl", "ruby"):
        return flags[-1] in "eE" and len(flags) > 1 and not set(flags[:-1]) & set("iIMmxrCdF0KTE")
    return False


def _joined(args: tuple[Field, ...]) -> Field:
    if len(args) == 1:
        return args[0]
    taint: frozenset[Taint] = frozenset().union(*(a.taint for a in args))
    opaque = all(a.opaque for a in args)
    return Field(" ".join(a.text for a in args), all(a.exact for a in args), taint, opaque=opaque)
