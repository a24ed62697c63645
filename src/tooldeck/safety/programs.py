"""What a command line really runs: wrappers peeled off, and where a shell or interpreter gets code.

`sudo env -i timeout 5 /bin/rm -rf ~` runs `rm -rf ~`; `busybox rm` runs `rm`; `bash -c CODE`,
`eval`, `python -c CODE`, `perl -e`, `awk PROGRAM`, `bash` reading a pipe and `source FILE` run
code from an argument, standard input or a file, which the walker then analyses in turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tooldeck.safety.knowledge.table import Table, Wrapper, programs
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


def unwrap(argv: tuple[Field, ...], table: Table | None = None) -> Unwrapped:
    """Peel wrapper programs (the table's `[[wrapper]]`s) until the program that does the work is first."""
    known = (table or programs()).wrappers
    wrappers: list[str] = []
    env: list[tuple[str, Field]] = []
    privileged = False
    root_shell = False
    current = argv
    for _ in range(16):
        if not current:
            break
        name = basename(current[0])
        wrapper = known.get(name)
        if wrapper is None or (name == "command" and _command_lookup(current)):
            break
        if wrapper.subcommands and not (current[1:2] and current[1].text in wrapper.subcommands):
            break
        rest, as_root, shell = _peel_one(name, wrapper, current[1:])
        if wrapper.sets_env:
            env += _assignments(current[1 : len(current) - len(rest)])
        privileged = privileged or (wrapper.privileged and as_root)
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


def _peel_one(name: str, wrapper: Wrapper, args: tuple[Field, ...]) -> tuple[tuple[Field, ...], bool, bool]:
    """The wrapped argv, whether it runs as root, and whether a bare root shell was asked for."""
    if name == "env":
        return _peel_env(wrapper, args), False, False
    if wrapper.subcommands and args[:1] and args[0].text in wrapper.subcommands:
        args = args[1:]
    rest = _skip_options(wrapper, args)
    given = args[: len(args) - len(rest)]
    rest = rest[wrapper.skip_operands :]
    if rest[:1] and rest[0].text in wrapper.command_options:
        return (Field("sh"), Field("-c"), *rest[1:]), False, False
    if wrapper.sets_env:
        # sudo sets the variables written before the command (`sudo EDITOR=x visudo`).
        while rest and _ASSIGNMENT.fullmatch(rest[0].text):
            rest = rest[1:]
    user = _option_value(given, "-u", "--user") or _option_value(given, "--userspec", "--userspec")
    as_root = user is None or user.split(":", 1)[0] in ("root", "0", "#0")
    shell = any(a.text in wrapper.shell_options for a in given)
    return rest, as_root, shell


def _skip_options(wrapper: Wrapper, args: tuple[Field, ...]) -> tuple[Field, ...]:
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--":
            return args[i + 1 :]
        if not text.startswith("-") or text == "-":
            break
        i += 2 if text in wrapper.value_options else 1
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


def _peel_env(wrapper: Wrapper, args: tuple[Field, ...]) -> tuple[Field, ...]:
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
        if text in wrapper.value_options:
            i += 2
        elif text.startswith("-") or _ASSIGNMENT.match(text):
            i += 1
        else:
            break
    return args[i:]


def package_command(argv: tuple[Field, ...], table: Table | None = None) -> tuple[Field, ...] | None:
    """What a package runner runs (the table's `[[runner]]`s): `npx rimraf@5 ~` runs `rimraf ~`,
    `pipx run --spec x black .` runs `black .`; None when `argv` runs no package."""
    runner = (table or programs()).runners.get(basename(argv[0])) if argv else None
    if runner is None:
        return None
    args = argv[1:]
    if runner.subcommands:
        words = [a.text for a in args]
        sub = next((s for s in runner.subcommands if tuple(words[: len(s)]) == s), None)
        if sub is None:
            return None
        args = args[len(sub) :]
    words = [a.text for a in args]
    if "--" in words and (runner.bare or not any(not w.startswith("-") for w in words[: words.index("--")])):
        rest = args[words.index("--") + 1 :]
    else:
        i = 0
        while i < len(args) and args[i].text.startswith("-") and args[i].text != "-":
            i += 2 if args[i].text in runner.value_options else 1
        rest = args[i:]
    if not rest:
        return None
    if runner.bare:
        return rest
    package = rest[0].text
    package = package.rsplit("@", 1)[0] if "@" in package[1:] else package
    return (Field(package.rsplit("/", 1)[-1], rest[0].exact, rest[0].taint), *rest[1:])


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
