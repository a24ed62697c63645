"""Destroying data without `rm`: shredding, truncating to nothing, copying /dev/null over a
file, moving files onto /dev/null, and taking every permission away, when the files matter.

Files matter when they are outside the workspace (the home directory, the system, a parent
folder), the whole workspace, or every file below a folder (what `find ... -exec` and a listing
piped to `xargs` hand over). One file of the project (`shred -u old-secret.txt`, `truncate -s 0
build.log`) is the user's own business; caches, scratch space and logs of the project are too.
"""

from __future__ import annotations

import re

from tooldeck.safety.analysis.argv import options
from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.model import HOME_MARK, Field, Invocation
from tooldeck.safety.analysis.paths import classify, resolve
from tooldeck.safety.knowledge.rules.base import RuleSet

rules = RuleSet("data_destruction")

_OUTSIDE = {
    "root": "the root filesystem",
    "root_contents": "everything on the machine",
    "system": "a system file",
    "all_homes": "every user's home",
    "home": "the home directory",
    "home_contents": "everything in the home directory",
    "home_item": "a file in the home directory",
    "credentials": "keys or credentials",
    "workspace_all": "every file of the workspace",
    "parent": "the folder above the workspace",
    "git_dir": "the repository's history",
}
_LOG_NAME = re.compile(r".*\.(?:log|out|err|tmp)(?:\.\d+)?|\*\.(?:log|out|err|tmp)")


def what_matters(target: Field, cwd: str | None) -> str | None:
    """What destroying `target` would destroy, when that matters; None for the project's own files."""
    text = target.text
    if text.startswith("$ITEM"):
        return "files listed at run time"
    kind = classify(text, cwd)
    if kind in _OUTSIDE:
        return _OUTSIDE[kind]
    if kind != "local":
        return None
    path = resolve(text, cwd)
    if "**" in path.parts:
        below = path.shown().split("/**", 1)[0] or "/"
        return f"every file below {below}"
    if path.anchor == "~":
        return "a file in the home directory"
    if path.anchor == "/" or path.parts[:1] == ("..",):
        return "a file outside the workspace"
    return None


def _shown(target: Field) -> str:
    return target.shown().replace(HOME_MARK, "~")


@rules.rule(
    "shred-files", "approve", "shreds or wipes files that matter (outside the workspace, or many at once)"
)
def _shred(inv: Invocation) -> str | None:
    if inv.name not in ("shred", "srm", "wipe", "scrub"):
        return None
    values = frozenset({"-n", "--iterations", "-s", "--size", "--random-source", "-p", "-S", "-f"})
    for target in options(inv, values if inv.name != "wipe" else frozenset()).operands:
        if classify(target.text, inv.cwd) == "device":
            continue  # the disk rules judge devices
        why = what_matters(target, inv.cwd)
        if why is not None:
            return f"{inv.name} overwrites {_shown(target)} beyond recovery: {why}"
    return None


def _zero_size(inv: Invocation) -> bool:
    size = options(inv, frozenset({"-s", "--size", "-r", "--reference"})).value("-s", "--size")
    return size is not None and re.fullmatch(r"[<]?0+[KMGTPEZY]?i?B?", size) is not None


_ZERO_SOURCES = frozenset({"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"})


def _emptied(inv: Invocation) -> list[tuple[Field, bool]]:
    """Files this invocation empties, each with whether even a project file is worth asking about
    (`cp /dev/null important` is; `truncate -s 0 build.log` is not)."""
    out: list[tuple[Field, bool]] = []
    if inv.name == "truncate" and _zero_size(inv):
        out += [(f, False) for f in options(inv, frozenset({"-s", "--size", "-r", "--reference"})).operands]
    for target, kind in written_files(inv):
        if kind == "empty" and inv.name in ("cp", "install", "rsync"):
            out.append((target, True))
        elif kind == "overwrite" and "**" in target.text.split("/"):
            out.append((target, False))  # a redirection or tee onto every file `find` lists
    if _writes_nothing(inv):
        out += [(r.target, False) for r in inv.redirects if r.truncates and r.fd in (None, 1)]
    if inv.name in ("dd", "dcfldd"):
        sources = {a.text[3:] for a in inv.args if a.text.startswith("if=")}
        if sources & _ZERO_SOURCES and not any(a.text.startswith("seek=") for a in inv.args):
            out += [(Field(a.text[3:], a.exact), False) for a in inv.args if a.text.startswith("of=")]
    return out


def _writes_nothing(inv: Invocation) -> bool:
    """`: > f`, `true > f`, `cat /dev/null > f`: the redirection leaves the file empty."""
    if inv.name in (":", "true"):
        return True
    operands = options(inv).operands
    return inv.name == "cat" and bool(operands) and all(o.text == "/dev/null" for o in operands)


@rules.rule(
    "empty-files",
    "approve",
    "empties files that matter: truncate -s 0, cp /dev/null over a file, dd from /dev/zero, > on every file",
)
def _empty(inv: Invocation) -> str | None:
    for target, any_file in _emptied(inv):
        kind = classify(target.text, inv.cwd)
        if kind in ("device", "pseudo", "scratch", "cache", "log", "history"):
            continue  # devices, logs and history have rules of their own
        if _LOG_NAME.fullmatch(target.text.rsplit("/", 1)[-1]):
            continue
        why = what_matters(target, inv.cwd) or ("a file of the project" if any_file else None)
        if why is not None:
            return f"{inv.name} empties {_shown(target)}: {why}"
    return None


@rules.rule(
    "move-to-null", "approve", "moves files onto /dev/null, which destroys them (and replaces the device)"
)
def _move_to_null(inv: Invocation) -> str | None:
    if inv.name != "mv":
        return None
    operands = options(inv, frozenset({"-t", "--target-directory", "-S", "--suffix"})).operands
    target = options(inv, frozenset({"-t", "--target-directory"})).value("-t", "--target-directory")
    if (len(operands) >= 2 and operands[-1].text == "/dev/null") or target == "/dev/null":
        sources = [o for o in operands if o.text != "/dev/null"]
        return f"mv {' '.join(_shown(s) for s in sources)[:80]} onto /dev/null destroys it"
    return None


def _strips_everything(mode: str) -> bool:
    """0, 000, a=, ugo-rwx: no one may read, write or run the file any more."""
    return bool(
        re.fullmatch(r"0{1,4}", mode)
        or re.fullmatch(r"(?:[ugoa]*=,?)+", mode)
        or re.fullmatch(r"(?:a|ugo)?-rwx[Xst]*", mode)
        or mode == "u-rwx,g-rwx,o-rwx"
    )


@rules.rule(
    "strip-permissions",
    "approve",
    "takes every permission away (chmod 000) from many files or from files that matter",
)
def _strip(inv: Invocation) -> str | None:
    if inv.name != "chmod" or not inv.args:
        return None
    opts = options(inv, frozenset({"--reference"}))
    words = list(opts.operands)
    if not words or not _strips_everything(words[0].text):
        return None
    recursive = opts.has("-R", "--recursive")
    for target in words[1:]:
        why = what_matters(target, inv.cwd)
        if why is None and recursive:
            why = f"every file below {_shown(target)}"
        if why is not None:
            return f"chmod {words[0].text} leaves {_shown(target)} unreadable: {why}"
    return None
