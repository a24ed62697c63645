"""Where a shell or interpreter gets the code it runs (wrappers are peeled by the program table:
`knowledge/wrappers.py`).

`bash -c CODE`, `eval`, `python -c CODE`, `perl -e`, `awk PROGRAM`, `bash` reading a pipe and `source FILE` run
code from an argument, standard input or a file, which the walker then analyses in turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tooldeck.safety.analysis.model import Field, Taint

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


def basename(field: Field) -> str:
    return field.text.rsplit("/", 1)[-1]


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
