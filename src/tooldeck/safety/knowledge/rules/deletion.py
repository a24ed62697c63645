"""Recursive or forced deletion of paths that matter: /, system trees, home, credentials, the workspace."""

from __future__ import annotations

import re
from typing import Literal

from tooldeck.safety.analysis.model import HOME_MARK, Field, Invocation
from tooldeck.safety.analysis.paths import PathKind, classify, resolve
from tooldeck.safety.knowledge.rules.base import RuleSet, options

rules = RuleSet("recursive_delete")

_HOME_KINDS: frozenset[PathKind] = frozenset({"home", "home_contents", "all_homes"})


# A command substitution that lists a directory's entries: `$(ls -A)`, `` `ls ~` ``,
# `$(find . -maxdepth 1)`, `$(git ls-files)`; what rm gets is every entry of that directory
# (or, for `$(git rev-parse --show-toplevel)`, the repository itself).
_LISTING = re.compile(
    r"(?:\$\(|`)\s*(?:"
    r"(?:command\s+)?ls(?:\s+-[A-Za-z1]+)*(?:\s+(?P<ls>[^\s;|&`()-][^\s;|&`()]*))?"
    r"|find\s+(?P<find>[^\s;|&`()-][^\s;|&`()]*)(?:\s+-(?:min|max)depth\s+\d+|\s+-type\s+[fd])*"
    r"|git\s+ls-files(?:\s+-[zc])?"
    r"|(?P<top>git\s+rev-parse\s+--show-toplevel)"
    r")\s*(?:\)|`)"
)


def _listed_entries(field: Field) -> Field:
    """`$(ls -A DIR)` as `DIR/*`, the entries it expands to; `$(git rev-parse --show-toplevel)` as
    the workspace; any other word as it is."""
    match = _LISTING.fullmatch(field.text.strip())
    if match is None or field.exact:
        return field
    if match.group("top"):  # the repository's root: the workspace itself
        return Field(".", exact=False)
    folder = match.group("ls") or match.group("find") or "."
    folder = HOME_MARK + folder[1:] if folder.startswith("~") else folder
    return Field(folder.rstrip("/") + "/*" if folder != "/" else "/*", exact=False, glob=True)


def deletion_targets(inv: Invocation) -> list[tuple[Field, bool]]:
    """Paths a command deletes, each with whether the deletion is recursive (or a wide glob)."""
    name = inv.name
    if name == "rm":
        opts = options(inv)
        recursive = opts.has("-r", "-R", "--recursive")
        # `find DIR -exec rm {} +` removes every file below DIR, as `rm -r` would.
        operands = [_listed_entries(f) for f in opts.operands]
        return [(f, recursive or "**" in f.text.split("/")) for f in operands]
    if name in ("rimraf", "del", "del-cli", "rimraf.cmd"):
        return [(f, True) for f in options(inv).operands]
    if name in ("rmdir", "unlink", "srm", "trash", "trash-put", "gio", "gvfs-trash", "trash-cli"):
        # Trashing a folder takes all of it: `gio trash DIR` is `rm -r DIR` with an undo few use.
        trash = name != "gio" or inv.arg_texts()[:1] == ["trash"]
        recursive = name in ("srm", "trash", "trash-put", "gvfs-trash", "trash-cli") or (
            name == "gio" and trash
        )
        return [(f, recursive) for f in options(inv).operands if f.text != "trash"]
    if name in ("kioclient", "kioclient5", "kioclient6") and inv.arg_texts()[:1] in (["move"], ["mv"]):
        operands = [f for f in options(inv).operands[1:]]
        if operands and operands[-1].text.startswith("trash:"):
            return [(f, True) for f in operands[:-1]]
    if name == "rsync":
        opts = options(inv, frozenset({"-e", "--rsh", "--exclude", "--include", "--filter", "-f"}))
        deletes = any(w.startswith("--delete") or w in ("--remove-source-files",) for w in opts.long)
        if deletes and len(opts.operands) >= 2 and ":" not in opts.operands[-1].text:
            return [(opts.operands[-1], True)]
    return []


def _kind(inv: Invocation, target: Field) -> PathKind:
    return classify(target.text, inv.cwd)


# What a deleted target's class means, for the rules declared by `_deletes`.
_WHY: dict[PathKind, str] = {
    "system": "part of the operating system",
    "credentials": "keys or credentials that cannot be recovered",
    "parent": "outside the workspace",
    "workspace_all": "everything in the working directory",
}
Reach = Literal["any", "tree", "tree or glob"]


def _deletes(rule_id: str, description: str, kinds: tuple[PathKind, ...], reach: Reach) -> None:
    """A rule over one effect: deleting a target of one of `kinds` (`paths.classify`), by any
    deleting program (`deletion_targets`), at any depth or only a whole tree (or a wide glob)."""

    def match(inv: Invocation) -> str | None:
        for target, recursive in deletion_targets(inv):
            wide = reach == "any" or recursive or (reach == "tree or glob" and target.glob)
            kind = _kind(inv, target)
            if wide and kind in kinds:
                return f"{inv.name} deletes {target.shown()}: {_WHY[kind]}"
        return None

    rules.rule(rule_id, "approve", description, previewable=True)(match)


@rules.rule(
    "delete-root",
    "block",
    "deletes the root filesystem (rm -rf /, rm -rf /*, rsync --delete onto /)",
    previewable=True,
)
def _root(inv: Invocation) -> str | None:
    if inv.name == "rm" and "--no-preserve-root" in inv.arg_texts():
        return "rm --no-preserve-root removes the whole filesystem"
    for target, recursive in deletion_targets(inv):
        kind = _kind(inv, target)
        if kind == "root_contents" or (kind == "root" and recursive):
            return f"{inv.name} deletes {target.shown()}: the whole root filesystem"
    return None


_deletes("delete-system", "deletes a system directory or file (/etc, /usr, /var/lib/...)", ("system",), "any")


@rules.rule(
    "delete-home",
    "approve",
    "deletes the home directory, its contents or a top-level entry of it",
    previewable=True,
)
def _home(inv: Invocation) -> str | None:
    for target, recursive in deletion_targets(inv):
        kind = _kind(inv, target)
        if kind in _HOME_KINDS or (kind == "home_item" and (recursive or target.glob)):
            return f"{inv.name} deletes {target.shown()} in the home directory"
    return None


_deletes(
    "delete-credentials",
    "deletes keys or credentials (~/.ssh, ~/.gnupg, ~/.aws, ...)",
    ("credentials",),
    "any",
)
_deletes(
    "delete-outside-workspace",
    "recursively deletes the parent directory or its contents",
    ("parent",),
    "tree",
)
_deletes(
    "delete-workspace",
    "recursively deletes everything in the working directory (rm -rf *)",
    ("workspace_all",),
    "tree or glob",
)


# Top-level folders that hold a project's own work, never rebuilt from anything.
_SOURCE_TREES = frozenset(
    {
        "src",
        "lib",
        "app",
        "apps",
        "tests",
        "test",
        "spec",
        "migrations",
        "docs",
        "packages",
        "cmd",
        "internal",
        "pkg",
        "include",
        "scripts",
        "config",
        ".github",
        "source",
        "sources",
    }
)


@rules.rule(
    "delete-source-tree",
    "approve",
    "recursively deletes a top-level folder of the project's own work (src/, tests/, migrations/)",
    previewable=True,
)
def _source_tree(inv: Invocation) -> str | None:
    for target, recursive in deletion_targets(inv):
        if not recursive or target.opaque:
            continue
        path = resolve(target.text, inv.cwd)
        parts = path.parts[:-1] if path.parts[-1:] == ("**",) else path.parts  # find DIR -delete
        if path.anchor == "." and len(parts) == 1 and parts[0] in _SOURCE_TREES:
            return (
                f"{inv.name} deletes {target.shown()}: the project's own {path.parts[0]}, not a build output"
            )
    return None


rules.declare(
    "delete-cloud-storage",
    "approve",
    "deletes a cloud storage bucket or its objects recursively",
    previewable=True,
)
