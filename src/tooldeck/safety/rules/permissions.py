"""Permission wrecking: recursive mode or owner changes on system or home trees, setuid, world-writable system files."""

from __future__ import annotations

import re

from tooldeck.safety.model import Invocation
from tooldeck.safety.paths import PathKind, classify, resolve
from tooldeck.safety.rules.base import RuleSet, options

rules = RuleSet("permission_wreck")

_WIDE: frozenset[PathKind] = frozenset(
    {"root", "root_contents", "system", "all_homes", "home", "home_contents"}
)
_SENSITIVE_FILES = re.compile(
    r"/etc/(passwd|shadow|gshadow|group|sudoers(\.d(/.*)?)?)|/(var/)?run/docker\.sock|/etc/ssh/.*"
)
_CHANGERS = frozenset({"chmod", "chown", "chgrp", "setfacl", "chattr"})


def _mode_and_targets(inv: Invocation) -> tuple[str, list[str]]:
    opts = options(inv, frozenset({"--reference"}))
    operands = [o.text for o in opts.operands]
    if inv.name == "setfacl":
        return "", operands
    if inv.name == "chmod" and opts.short and not opts.has("-R", "-f", "-v", "-c") and inv.args:
        # A symbolic mode such as -x or -w looks like an option: it is the first argument.
        first = inv.args[0].text
        if re.fullmatch(r"-[rwxXst]+", first):
            return first, operands
    if inv.name in ("chmod", "chown", "chgrp") and operands:
        return operands[0], operands[1:]
    return "", operands


def _recursive(inv: Invocation) -> bool:
    return options(inv).has("-R", "--recursive") or (inv.name == "chattr" and options(inv).has("-R"))


@rules.rule(
    "chmod-system-tree", "approve", "recursively changes modes, owners or ACLs of /, a system tree or home"
)
def _tree(inv: Invocation) -> str | None:
    if inv.name not in _CHANGERS or not _recursive(inv):
        return None
    _mode, targets = _mode_and_targets(inv)
    for target in targets:
        kind = classify(target, inv.cwd)
        if kind in _WIDE:
            return f"{inv.name} -R on {resolve(target, inv.cwd).shown()} changes every file below it"
    return None


def mode_bits(mode: str) -> tuple[bool, bool, bool]:
    """(setuid, group/other gain write, group/other gain any access) for a chmod mode."""
    if re.fullmatch(r"[0-7]{3,4}", mode):
        digits = mode.zfill(4)
        special = int(digits[0]) & 0b100 != 0
        group, other = int(digits[2]), int(digits[3])
        return special, bool((group | other) & 0b010), bool(group | other)
    special = gain_write = gain_any = False
    for clause in mode.split(","):
        match = re.fullmatch(r"([ugoa]*)([-+=])([rwxXstugo]*)", clause)
        if not match:
            continue
        who, op, perms = match.groups()
        if op == "-":
            continue
        if "s" in perms and (who == "" or "u" in who or "a" in who):
            special = True
        others = who == "" or "a" in who or "g" in who or "o" in who
        if others and perms.strip("st"):
            gain_any = True
            gain_write = gain_write or "w" in perms
    return special, gain_write, gain_any


@rules.rule("setuid", "approve", "sets the setuid or setgid bit (a root shell for whoever runs the file)")
def _setuid(inv: Invocation) -> str | None:
    if inv.name != "chmod":
        return None
    mode, targets = _mode_and_targets(inv)
    special, _w, _a = mode_bits(mode)
    if special and targets:
        return f"chmod {mode} makes {targets[0]} run with its owner's privileges"
    return None


@rules.rule("world-writable-system", "approve", "opens a system file, device or socket to every user")
def _world(inv: Invocation) -> str | None:
    if inv.name != "chmod":
        return None
    mode, targets = _mode_and_targets(inv)
    _special, gain_write, _any = mode_bits(mode)
    for target in targets:
        shown = resolve(target, inv.cwd).shown()
        kind = classify(target, inv.cwd)
        if gain_write and (
            kind in ("system", "device", "root", "root_contents") or _SENSITIVE_FILES.fullmatch(shown)
        ):
            return f"chmod {mode} lets every user write {shown}"
    return None


@rules.rule(
    "open-credentials", "approve", "lets other users read or write keys and credentials (~/.ssh, ~/.aws)"
)
def _credentials(inv: Invocation) -> str | None:
    if inv.name not in ("chmod", "setfacl"):
        return None
    mode, targets = _mode_and_targets(inv)
    _special, _write, gain_any = mode_bits(mode)
    if inv.name == "setfacl":
        gain_any = options(inv).has("-m", "--modify")
    for target in targets:
        if gain_any and classify(target, inv.cwd) == "credentials":
            return f"{inv.name} {mode} opens {resolve(target, inv.cwd).shown()} to other users"
    return None


@rules.rule(
    "chown-sensitive", "approve", "changes the owner of account databases, sudoers or the docker socket"
)
def _chown(inv: Invocation) -> str | None:
    if inv.name not in ("chown", "chgrp"):
        return None
    _owner, targets = _mode_and_targets(inv)
    for target in targets:
        shown = resolve(target, inv.cwd).shown()
        if _SENSITIVE_FILES.fullmatch(shown):
            return f"{inv.name} hands {shown} to another owner"
    return None
