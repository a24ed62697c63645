"""Commands git runs on the side: configuration whose value is a command, and subcommands that
run one.

`git -c core.sshCommand=CMD fetch`, `-c core.pager=`, `-c alias.x='!CMD'`, `core.fsmonitor`,
filters, diff drivers, credential helpers and `ext::` URLs run CMD; `git config KEY VALUE` stores
it for every later git command, and `core.hooksPath` points the hooks at another folder. A value
naming the program the setting usually holds (ssh, less, vim, git-lfs) is analysed but not
flagged. `submodule foreach`, `rebase --exec` and `bisect run` run commands that are analysed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from tooldeck.safety.analysis.hook_types import (
    DIFFERS,
    EDITORS,
    PAGERS,
    SSH_PROGRAMS,
    Hook,
    program_of,
)
from tooldeck.safety.analysis.model import HOME_MARK, Field, Invocation
from tooldeck.safety.knowledge.table import command_fields

_BOOLEAN = frozenset({"true", "false", "yes", "no", "on", "off", "0", "1", ""})


# Programs that serve as git credential helpers (`!gh auth git-credential`, `!aws codecommit ...`).
CREDENTIAL_HELPERS = frozenset(
    {"gh", "glab", "git", "aws", "gcloud", "az", "op", "pass", "gopass", "bw", "vault"}
)


def _usual_in(programs: frozenset[str]) -> Callable[[str], bool]:
    return lambda value: program_of(value) in programs


def _askpass(value: str) -> bool:
    return "askpass" in program_of(value)


def _never(_value: str) -> bool:
    return False


def _lfs(value: str) -> bool:
    return program_of(value) in ("git-lfs", "git-crypt") or value.startswith(("git-lfs ", "git lfs "))


def _gpg(value: str) -> bool:
    return program_of(value) in ("gpg", "gpg2", "gpgsm", "ssh-keygen")


# Settings whose value is a shell command, and which values are the usual program.
_COMMAND_KEYS: tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...] = (
    (re.compile(r"core\.sshcommand"), _usual_in(SSH_PROGRAMS)),
    (re.compile(r"core\.pager|pager\.[\w.-]+"), _usual_in(PAGERS)),
    (re.compile(r"core\.editor|sequence\.editor"), _usual_in(EDITORS)),
    (re.compile(r"core\.askpass"), _askpass),
    (re.compile(r"core\.gitproxy"), _never),
    (
        re.compile(r"diff\.external|diff\.[\w.-]+\.(?:command|textconv)|(?:diff|merge)tool\.[\w.-]+\.cmd"),
        _usual_in(DIFFERS),
    ),
    (re.compile(r"merge\.[\w.-]+\.driver"), _never),
    (re.compile(r"filter\.[\w.-]+\.(?:clean|smudge|process)"), _lfs),
    (re.compile(r"gpg\.program|gpg\.[\w.-]+\.program"), _gpg),
    (re.compile(r"uploadpack\.packobjectshook|remote\.[\w.-]+\.(?:uploadpack|receivepack)"), _never),
    (re.compile(r"web\.browser|browser\.[\w.-]+\.(?:cmd|path)"), _never),
)


def config_hook(name: str, value: str, via: str) -> Hook | None:
    """The hook a git setting installs, or None when the setting runs nothing."""
    key = name.lower()
    if key == "core.fsmonitor":
        if value.lower() in _BOOLEAN:
            return None
        return Hook(via, code=value, what="a file-system monitor command, run by every git status")
    if key == "core.hookspath":
        inside = not value.startswith(("/", "~", HOME_MARK, "..", "$")) and ".." not in value.split("/")
        return Hook(via, usual=inside, what=f"hooks from {value}, run by later commits and checkouts")
    if key == "protocol.ext.allow" and value.lower() == "always":
        return Hook(via, what="ext:: URLs, which run commands")
    if key == "credential.helper" or re.fullmatch(r"credential\..+\.helper", key):
        if value.startswith("!"):
            helper = program_of(value[1:])
            usual = helper in CREDENTIAL_HELPERS or helper.startswith(
                ("git-credential-", "docker-credential-")
            )
            return Hook(via, code=value[1:], usual=usual, what="a credential helper command")
        return None
    if key.startswith("alias."):
        if value.startswith("!"):
            return Hook(via, code=value[1:], usual=program_of(value[1:]) == "git", what="a shell alias")
        return None
    if key.startswith("pager.") and value.lower() in _BOOLEAN:
        return None
    for pattern, is_usual in _COMMAND_KEYS:
        if pattern.fullmatch(key):
            if not value:
                return None
            return Hook(via, code=value, usual=is_usual(value), what=f"the command in {name}")
    return None


def git_hooks(inv: Invocation) -> list[Hook]:
    given, after = command_fields("git", inv.args)
    words = [f.text for f in given]
    out: list[Hook] = []
    for i, word in enumerate(words[:-1]):
        if word == "-c":
            key, _sep, value = words[i + 1].partition("=")
            hook = config_hook(key, value, f"git -c {key}")
            out += [hook] if hook is not None else []
    rest = [f.text for f in after]
    if rest[:1] == ["config"]:
        out += _config_set(rest[1:])
    out += [
        Hook("git ext:: URL", argv=_ext_argv(w[5:]), what="an ext:: remote, which runs a command")
        for w in rest
        if w.startswith("ext::")
    ]
    out += _running_subcommands(rest)
    return out


_READ_OPTIONS = frozenset(
    {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "-l",
        "--list",
        "--unset",
        "--unset-all",
        "--remove-section",
        "--rename-section",
        "-e",
        "--edit",
        "--show-origin",
        "--show-scope",
        "--name-only",
    }
)
_CONFIG_VALUE = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})


def _config_set(args: list[str]) -> list[Hook]:
    """`git config [--global] KEY VALUE` and `git config set KEY VALUE` store a setting."""
    if args[:1] in (["get"], ["unset"], ["list"], ["edit"], ["rename-section"], ["remove-section"]):
        return []
    if args[:1] == ["set"]:
        args = args[1:]
    operands: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in _READ_OPTIONS:
            return []
        if word in _CONFIG_VALUE:
            i += 2
            continue
        if not word.startswith("-"):
            operands.append(word)
        i += 1
    if len(operands) < 2:
        return []
    hook = config_hook(operands[0], operands[1], f"git config {operands[0]}")
    return [replace(hook, later=True)] if hook is not None else []


def _ext_argv(command: str) -> tuple[Field, ...]:
    """An ext:: URL's command: words split on spaces, `% ` a literal space, `%%` a percent sign."""
    words = re.split(r"(?<!%) ", command)
    return tuple(Field(w.replace("% ", " ").replace("%%", "%")) for w in words if w)


def _running_subcommands(rest: list[str]) -> list[Hook]:
    if rest[:2] == ["submodule", "foreach"]:
        command = [w for w in rest[2:] if w not in ("--recursive", "--quiet", "-q")]
        return [Hook("git submodule foreach", code=" ".join(command), usual=True)] if command else []
    if rest[:2] == ["bisect", "run"] and len(rest) > 2:
        return [Hook("git bisect run", argv=tuple(Field(w) for w in rest[2:]), usual=True)]
    out: list[Hook] = []
    if rest[:1] in (["rebase"], ["filter-branch"], ["difftool"]):
        options = (
            "-x",
            "--exec",
            "--extcmd",
            "--tree-filter",
            "--index-filter",
            "--msg-filter",
            "--env-filter",
            "--commit-filter",
            "--parent-filter",
            "--tag-name-filter",
        )
        for j, word in enumerate(rest):
            name, sep, value = word.partition("=")
            if name in options and (sep or j + 1 < len(rest)):
                out.append(Hook(f"git {rest[0]} {name}", code=value if sep else rest[j + 1], usual=True))
    return out
