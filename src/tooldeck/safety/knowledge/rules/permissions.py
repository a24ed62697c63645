"""Permission wrecking: recursive mode or owner changes on system or home trees, setuid, world-writable system files."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import HOME_MARK, Invocation
from tooldeck.safety.analysis.paths import PathKind, classify, is_rc_file, is_secret, resolve
from tooldeck.safety.knowledge.rules.base import RuleSet, options
from tooldeck.safety.knowledge.table import programs, value_options_of

rules = RuleSet("permission_wreck")

_WIDE: frozenset[PathKind] = frozenset(
    {"root", "root_contents", "system", "all_homes", "home", "home_contents"}
)
_SENSITIVE_FILES = re.compile(
    r"/etc/(passwd|shadow|gshadow|group|sudoers(\.d(/.*)?)?)|/(var/)?run/docker\.sock|/etc/ssh/.*"
)
# The table's classes: which programs change modes, owners, groups, ACLs or attributes.
_CHANGERS = programs().in_class("permission-changer")
_MODES = programs().in_class("mode-changer")
_OWNERS = programs().in_class("owner-changer")
_GROUPS = programs().in_class("group-changer")
_ACLS = programs().in_class("acl-changer")
_ATTRIBUTES = programs().in_class("attribute-changer")
_MODES_OR_ACLS = _MODES | _ACLS


def acl_gains(inv: Invocation) -> tuple[bool, bool]:
    """(others gain write, others gain any access) by `setfacl -m`/`--set` entries
    (`u:bob:rwx`, `o::rw`, `d:g:dev:r`); the owner's own entry (`u::rwx`) gives no one else anything."""
    words = inv.arg_texts()
    specs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-m", "--modify", "--set")]
    specs += [w.split("=", 1)[1] for w in words if w.startswith(("--modify=", "--set="))]
    write = gain = False
    for entry in (e for spec in specs for e in spec.split(",")):
        fields = entry.strip().split(":")
        if fields[:1] in (["d"], ["default"]):
            fields = fields[1:]
        if len(fields) < 2 or (fields[0] in ("u", "user") and not fields[1]):
            continue
        perms = fields[-1]
        write = write or "w" in perms
        gain = gain or bool(set(perms) & set("rwxX"))
    return write, gain


def _mode_and_targets(inv: Invocation) -> tuple[str, list[str]]:
    if inv.name in _ACLS:
        return "", [o.text for o in options(inv, value_options_of(inv.name)).operands]
    opts = options(inv, frozenset({"--reference"}))
    operands = [o.text for o in opts.operands]
    if inv.name in _MODES and opts.short and inv.args:
        # A symbolic mode such as -x or -w looks like an option: it is the first argument that is
        # not one of chmod's own flags (`chmod -R -x .`).
        words = [a.text for a in inv.args]
        flags = ("-R", "-f", "-v", "-c", "--recursive", "--silent", "--quiet", "--verbose", "--changes")
        rest = [w for w in words if w not in flags and not re.fullmatch(r"-[Rfvc]+", w)]
        if rest and re.fullmatch(r"-[rwxXst]+(?:,[ugoa]*[-+=][rwxXst]*)*", rest[0]):
            return rest[0], [w for w in rest[1:] if w != "--"]
    if inv.name in _MODES | _OWNERS | _GROUPS and operands:
        return operands[0], operands[1:]
    return "", operands


def _recursive(inv: Invocation) -> bool:
    """-R, or every file below a tree (`find DIR -exec chmod ... {} +` reaches `DIR/**`)."""
    if options(inv).has("-R", "--recursive"):
        return True
    return any(t.endswith("/**") for t in _mode_and_targets(inv)[1])


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
    if inv.name not in _MODES:
        return None
    mode, targets = _mode_and_targets(inv)
    special, _w, _a = mode_bits(mode)
    if special and targets:
        return f"chmod {mode} makes {targets[0]} run with its owner's privileges"
    return None


@rules.rule(
    "world-writable-system",
    "approve",
    "lets other users write a system file, device or socket, the home directory or a start-up file",
)
def _world(inv: Invocation) -> str | None:
    if inv.name not in _MODES_OR_ACLS:
        return None
    mode, targets = _mode_and_targets(inv)
    gain_write = acl_gains(inv)[0] if inv.name in _ACLS else mode_bits(mode)[1]
    if not gain_write:
        return None
    for target in targets:
        shown = resolve(target, inv.cwd).shown()
        kind = classify(target, inv.cwd)
        if (
            kind in ("system", "device", "root", "root_contents", "home", "all_homes")
            or _SENSITIVE_FILES.fullmatch(shown)
            or is_rc_file(shown.replace("~", HOME_MARK, 1))
        ):
            return f"{inv.name} {mode or 'an ACL'} lets other users write {shown}"
    return None


_OWN_TREES: frozenset[PathKind] = frozenset({"workspace_all", "home_item", "home_contents", "parent"})


@rules.rule(
    "world-writable-tree",
    "approve",
    "lets every user write a whole tree of the user's files (chmod -R 777 ., setfacl -R -m o::rwx ~/work)",
)
def _world_tree(inv: Invocation) -> str | None:
    if inv.name not in _MODES_OR_ACLS or not _recursive(inv):
        return None
    mode, targets = _mode_and_targets(inv)
    if not (acl_gains(inv)[0] if inv.name in _ACLS else _others_write(mode)):
        return None
    for target in targets:
        if classify(target.removesuffix("/**"), inv.cwd) in _OWN_TREES:
            return f"{inv.name} {mode or 'an ACL'} lets every user write all of {resolve(target, inv.cwd).shown()}"
    return None


# Owners that are the user running the command: `$USER`, `$(id -u)`, `$(whoami)`, `:staff` alone.
_SELF_OWNER = re.compile(
    r"[\"']?(\$\{?(USER|LOGNAME|UID)\}?|\$\((id -u|id -un|whoami)\)|`(id -u|whoami)`)[\"']?"
)


def _other_owner(owner: str) -> bool:
    """`root`, `nobody:nogroup`, `www-data`: an owner that is not the user (a group only is not)."""
    user = owner.split(":", 1)[0].split(".", 1)[0]
    return bool(user) and not _SELF_OWNER.fullmatch(user) and not user.startswith("$")


def _named_other_owner(owner: str) -> bool:
    """An owner that is surely not the user: a name, or uid 0 (`1000:1000` may well be the user)."""
    user = owner.split(":", 1)[0].split(".", 1)[0]
    return _other_owner(owner) and (not user.isdigit() or int(user) == 0)


# Trees of the user's files deeper down (`~/projects/webapp`, `./src`): given away or frozen,
# they can no longer be edited, built or deleted by their owner.
def _deep_own_tree(target: str, cwd: str | None) -> bool:
    path = resolve(target.removesuffix("/**"), cwd)
    return classify(target.removesuffix("/**"), cwd) == "local" and path.anchor in (".", "~")


@rules.rule(
    "chown-own-tree",
    "approve",
    "gives a whole tree of the user's files to another owner (sudo chown -R root:root ., chown -R nobody ~/projects)",
)
def _chown_tree(inv: Invocation) -> str | None:
    if inv.name not in _OWNERS or not _recursive(inv):
        return None
    owner, targets = _mode_and_targets(inv)
    if not _other_owner(owner):
        return None
    for target in targets:
        if classify(target.removesuffix("/**"), inv.cwd) in _OWN_TREES or (
            _named_other_owner(owner) and _deep_own_tree(target, inv.cwd)
        ):
            shown = resolve(target, inv.cwd).shown()
            return f"chown -R {owner} hands all of {shown} to another owner: the user can no longer change it"
    return None


@rules.rule(
    "immutable-tree",
    "approve",
    "makes a whole tree of the user's files immutable or append-only (chattr -R +i .)",
)
def _immutable_tree(inv: Invocation) -> str | None:
    if inv.name not in _ATTRIBUTES or not _recursive(inv):
        return None
    words = inv.arg_texts()
    flags = [w for w in words if re.fullmatch(r"[+=][a-zA-Z]*[ia][a-zA-Z]*", w)]
    if not flags:
        return None
    for target in (w for w in words if not w.startswith(("-", "+", "="))):
        if classify(target, inv.cwd) in _OWN_TREES or _deep_own_tree(target, inv.cwd):
            return f"chattr {flags[0]} on all of {target}: nothing in it can be changed until root undoes it"
    return None


def _others_write(mode: str) -> bool:
    """Others (not only the group) gain write: 777, 666, o+w, a+rw."""
    if re.fullmatch(r"[0-7]{3,4}", mode):
        return int(mode[-1]) & 0b010 != 0
    return any(
        (m := re.fullmatch(r"([ugoa]*)[+=]([rwxXst]*)", clause)) is not None
        and (m.group(1) in ("", "a") or "o" in m.group(1))
        and "w" in m.group(2)
        for clause in mode.split(",")
    )


@rules.rule(
    "open-credentials", "approve", "lets other users read or write keys and credentials (~/.ssh, ~/.aws)"
)
def _credentials(inv: Invocation) -> str | None:
    if inv.name not in _MODES_OR_ACLS:
        return None
    mode, targets = _mode_and_targets(inv)
    _special, gain_write, gain_any = mode_bits(mode)
    if inv.name in _ACLS:
        gain_write, gain_any = acl_gains(inv)
    for target in targets:
        if not gain_any or classify(target, inv.cwd) != "credentials":
            continue
        # Public halves and client settings (`id_ed25519.pub`, `known_hosts`, `config`) are meant
        # to be readable; letting others write them, or anything below, is not.
        if gain_write or _recursive(inv) or (is_secret(target, inv.cwd) and not _folder_itself(target, inv)):
            return f"{inv.name} {mode or 'an ACL'} opens {resolve(target, inv.cwd).shown()} to other users"
    return None


_CREDENTIAL_FILES = frozenset({".netrc", ".git-credentials", ".pgpass", ".vault-token", ".npmrc", ".pypirc"})


def _folder_itself(target: str, inv: Invocation) -> bool:
    """`~/.ssh` itself: reading a folder lists its names, not what its files hold."""
    path = resolve(target, inv.cwd)
    return path.anchor == "~" and len(path.parts) == 1 and path.parts[0] not in _CREDENTIAL_FILES


@rules.rule(
    "chown-sensitive", "approve", "changes the owner of account databases, sudoers or the docker socket"
)
def _chown(inv: Invocation) -> str | None:
    if inv.name not in _OWNERS | _GROUPS:
        return None
    _owner, targets = _mode_and_targets(inv)
    for target in targets:
        shown = resolve(target, inv.cwd).shown()
        if _SENSITIVE_FILES.fullmatch(shown):
            return f"{inv.name} hands {shown} to another owner"
    return None


# Capabilities that amount to root: whoever runs the file can become root, read or write any
# file, load kernel code or take over other processes.
_ROOT_CAPABILITIES = frozenset(
    {
        "cap_setuid",
        "cap_setgid",
        "cap_setfcap",
        "cap_setpcap",
        "cap_sys_admin",
        "cap_sys_ptrace",
        "cap_sys_module",
        "cap_sys_rawio",
        "cap_sys_chroot",
        "cap_dac_override",
        "cap_dac_read_search",
        "cap_chown",
        "cap_fowner",
        "cap_bpf",
        "cap_mknod",
        "cap_linux_immutable",
        "all",
    }
)


def granted_capabilities(text: str) -> list[str]:
    """The capabilities a setcap clause grants (`cap_setuid+ep`, `cap_a,cap_b=eip`, `=ep` is all)."""
    out: list[str] = []
    for clause in re.split(r"\s+", text.strip()):
        match = re.fullmatch(r"([\w,]*)((?:[=+-][eip]*)+)", clause.lower())
        if match is None or not re.search(r"[=+][eip]", match.group(2)):
            continue
        names = [n for n in match.group(1).split(",") if n] or ["all"]
        out += names
    return out


@rules.rule(
    "grant-root-capability",
    "approve",
    "gives a program a capability that amounts to root (setcap cap_setuid+ep, cap_dac_override, =ep)",
)
def _capabilities(inv: Invocation) -> str | None:
    if inv.name != "setcap":
        return None
    operands = [w for w in inv.arg_texts() if not w.startswith("-")]
    if "-r" in inv.arg_texts():
        return None
    for clause, target in zip(operands[::2], operands[1::2], strict=False):
        strong = [c for c in granted_capabilities(clause) if c in _ROOT_CAPABILITIES]
        if strong:
            return f"setcap {clause} lets whoever runs {target} act as root ({strong[0]})"
    return None


@rules.rule("install-setuid", "approve", "installs or copies a file with the setuid or setgid bit")
def _install_setuid(inv: Invocation) -> str | None:
    if inv.name != "install":
        return None
    mode = options(inv, frozenset({"-m", "--mode", "-o", "-g", "-t"})).value("-m", "--mode")
    if mode is not None and mode_bits(mode)[0]:
        return f"install -m {mode} makes the installed file run with its owner's privileges"
    return None


def owner_loses_access(mode: str) -> str | None:
    """What the owner loses for good by a mode: "search" (x, so directories cannot be entered) or
    "read"; None when a later clause gives it back (`a-x+X` keeps directories searchable)."""
    if re.fullmatch(r"[0-7]{3,4}", mode):
        owner = int(mode.zfill(4)[1])
        return "read" if not owner & 0b100 else "search" if not owner & 0b001 else None
    lost: dict[str, bool] = {"x": False, "r": False}
    for clause in mode.split(","):
        match = re.fullmatch(r"([ugoa]*)((?:[-+=][rwxXstugo]*)+)", clause)
        if match is None:
            return None
        who, actions = match.groups()
        if who and "u" not in who and "a" not in who:
            continue
        for op, perms in re.findall(r"([-+=])([rwxXstugo]*)", actions):
            for bit in ("x", "r"):
                given = bit in perms or (bit == "x" and "X" in perms)
                if op == "+" and given:
                    lost[bit] = False
                elif (op == "-" and bit in perms) or (op == "=" and not given):
                    lost[bit] = True
    return "read" if lost["r"] else "search" if lost["x"] else None


_NOT_TREES: frozenset[PathKind] = frozenset(
    {"credentials", "scratch", "cache", "pseudo", "device", "unknown", "history", "log"}
)


@rules.rule(
    "lock-out-tree",
    "approve",
    "recursively takes the owner's read or search (x) permission from a tree (chmod -R a-x ., chmod -R 644 ~/work)",
)
def _lock_out(inv: Invocation) -> str | None:
    if inv.name not in _MODES or not options(inv).has("-R", "--recursive"):
        return None
    mode, targets = _mode_and_targets(inv)
    lost = owner_loses_access(mode)
    if lost is None:
        return None
    for target in targets:
        last = target.rstrip("/").rsplit("/", 1)[-1]
        if re.fullmatch(r"[*?]+\.\w+", last) or classify(target, inv.cwd) in _NOT_TREES:
            continue  # `./scripts/*.txt` names files; `~/.ssh` is tightened, not locked
        why = "directories can no longer be entered" if lost == "search" else "nothing can be read"
        return f"chmod -R {mode} on {resolve(target, inv.cwd).shown()}: {why}, even by the owner"
    return None
