"""Reading wrappers and package runners the way the table declares them: `sudo env -i timeout 5
/bin/rm -rf ~` runs `rm -rf ~`; `npx rimraf@5 ~` runs `rimraf ~`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tooldeck.safety.analysis.model import Field
from tooldeck.safety.analysis.programs import basename
from tooldeck.safety.knowledge.entries import Table, Wrapper


@dataclass(frozen=True, slots=True)
class Unwrapped:
    argv: tuple[Field, ...]
    wrappers: tuple[str, ...]
    privileged: bool
    # A root shell asked for with no command (`sudo -i`, `sudo -s`, `su`, `doas -s`).
    root_shell: bool = False
    # Variables the wrappers set for the program (`env X=1`, `sudo X=1`).
    env: tuple[tuple[str, Field], ...] = ()


def unwrap(argv: tuple[Field, ...], table: Table) -> Unwrapped:
    """Peel wrapper programs (the table's `[[wrapper]]`s) until the program that does the work is first."""
    known = table.wrappers
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
        if current[1:2] and current[1].text in wrapper.program_subcommands:
            wrappers.append(name)  # `colima nerdctl -- run x`: the subcommand is the program
            current = _program_subcommand(current[1:])
            continue
        string = table.shell_strings.get(name)
        if (
            string is not None
            and not wrapper.command_options
            and any(a.text in string.options for a in current[1:])
        ):
            break  # `runuser -l root -c CMD` hands CMD to a shell: read as a shell string
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


def _program_subcommand(args: tuple[Field, ...]) -> tuple[Field, ...]:
    """`nerdctl -- run x` as `nerdctl run x`: the `--` ends the wrapper's options, not the program's."""
    return (args[0], *args[2:]) if args[1:2] and args[1].text == "--" else args


def _command_lookup(argv: tuple[Field, ...]) -> bool:
    """`command -v NAME` only looks a program up."""
    return any(a.text in ("-v", "-V") for a in argv[1:2])


def _peel_one(name: str, wrapper: Wrapper, args: tuple[Field, ...]) -> tuple[tuple[Field, ...], bool, bool]:
    """The wrapped argv, whether it runs as root, and whether a bare root shell was asked for."""
    if name == "env":
        return _peel_env(wrapper, args), False, False
    if wrapper.subcommands and args[:1] and args[0].text in wrapper.subcommands:
        args = args[1:]
    if wrapper.argv_options:
        at = next((i for i, a in enumerate(args) if a.text in wrapper.argv_options), len(args))
        return args[at + 1 :], False, False
    rest = _skip_options(wrapper, args)
    given = args[: len(args) - len(rest)]
    rest = rest[wrapper.skip_operands :]
    if wrapper.skip_operands and rest[:1] and rest[0].text == "--":
        rest = rest[1:]  # `aws-vault exec PROFILE -- CMD`
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


def package_command(argv: tuple[Field, ...], table: Table) -> tuple[Field, ...] | None:
    """What a package runner runs (the table's `[[runner]]`s): `npx rimraf@5 ~` runs `rimraf ~`,
    `pipx run --spec x black .` runs `black .`; None when `argv` runs no package."""
    runner = table.runners.get(basename(argv[0])) if argv else None
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


__all__ = ["Unwrapped", "package_command", "unwrap"]
