"""What a command did to the workspace, read from the upper layer of its copy-on-write view.

A command that runs against an overlay of the workspace (lower: the workspace itself, upper: a
scratch folder) leaves every change in the upper layer and none in the workspace: a file it
wrote or changed is there whole, a name it deleted is a whiteout (a 0/0 character device), a
folder it replaced is marked opaque (the `overlay.opaque` extended attribute). `read_effects`
walks that layer and compares it with the workspace, entry by entry, through folder descriptors
that never follow a symlink, and returns the `Effects`: each path created, modified, emptied,
deleted or replaced, and what it was and is. Nothing is changed anywhere; landing the effects is
the caller's (through the workspace's confined file access, so they are checkpointed).

Overlay mounts used here: `redirect_dir=off`, `metacopy=off`, `index=off`, so a renamed folder is
a copy and a whiteout (never a redirect) and a changed file is whole in the upper layer.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from typing import Literal

Was = Literal["absent", "file", "folder", "symlink", "other"]
Verb = Literal["created", "modified", "emptied", "deleted", "replaced"]
_OPAQUE = ("trusted.overlay.opaque", "user.overlay.opaque")
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Effect:
    """One path the command changed (relative to the workspace root)."""

    path: str
    verb: Verb
    was: Was
    now: Was
    # Bytes before and after (files; 0 otherwise).
    size_before: int = 0
    size_after: int = 0

    @property
    def destroys(self) -> bool:
        """Whether data that existed before is gone: a file deleted, emptied or replaced."""
        return self.was == "file" and self.verb in ("deleted", "emptied", "replaced")


@dataclass
class Effects:
    """Everything one command did, in the order it can land: parents before children."""

    entries: list[Effect] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.entries)

    def without_mount_points(self, paths: set[str]) -> Effects:
        """These effects less the empty files and folders the sandbox made as mount points of
        read-only placeholders (`protected_mounts.py`): they are not the command's."""
        return Effects(
            [
                e
                for e in self.entries
                if not (e.path in paths and e.verb == "created" and (e.now == "folder" or e.size_after == 0))
            ]
        )

    def destroyed(self) -> list[Effect]:
        return [e for e in self.entries if e.destroys]

    def summary(self, limit: int = 6, *, done: bool = False) -> str:
        """What the effects do to files: "would delete 31 files under src/; would create 1 file:
        a.txt" (`done`: "deleted 31 files under src/; created ...")."""
        parts = []
        for verb, label, past in (
            ("deleted", "delete", "deleted"),
            ("emptied", "empty", "emptied"),
            ("replaced", "replace", "replaced"),
            ("modified", "change", "changed"),
            ("created", "create", "created"),
        ):
            paths = [
                e.path for e in self.entries if e.verb == verb and e.now != "folder" and e.was != "folder"
            ]
            if paths:
                parts.append(f"{past if done else 'would ' + label} {_grouped(paths, limit)}")
        return (
            "; ".join(parts) if parts else ("changed folders only" if done else "would change folders only")
        )

    def to_json(self) -> list[dict[str, object]]:
        return [
            {"path": e.path, "verb": e.verb, "was": e.was, "now": e.now, "size_before": e.size_before,
             "size_after": e.size_after}
            for e in self.entries
        ]  # fmt: skip


def _grouped(paths: list[str], limit: int) -> str:
    """Paths, grouped by their top folder when many: "31 files under src/, and notes.md"."""
    noun = "file" if len(paths) == 1 else "files"
    if len(paths) <= limit:
        return f"{len(paths)} {noun}: " + ", ".join(paths)
    groups: dict[str, int] = {}
    for p in paths:
        top = p.split("/", 1)[0] + "/" if "/" in p else p
        groups[top] = groups.get(top, 0) + 1
    ordered = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ordered) == 1 and ordered[0][0].endswith("/"):
        return f"{len(paths)} files under {ordered[0][0]}"
    shown = [f"{n} under {top}" if top.endswith("/") else top for top, n in ordered[:limit]]
    more = f", and {len(ordered) - limit} more places" if len(ordered) > limit else ""
    return f"{len(paths)} files ({', '.join(shown)}{more})"


def read_effects(upper: str, workspace: str) -> Effects:
    """See the module docstring."""
    effects = Effects()
    up = os.open(upper, _DIR)
    try:
        low = os.open(workspace, _DIR)
        try:
            _walk(up, low, "", effects)
        finally:
            os.close(low)
    finally:
        os.close(up)
    return effects


def _walk(up: int, low: int | None, prefix: str, effects: Effects) -> None:
    for entry in sorted(os.scandir(up), key=lambda e: e.name):
        name = entry.name
        rel = prefix + name
        st = os.stat(name, dir_fd=up, follow_symlinks=False)
        before = _lstat(low, name)
        was = kind_of(before)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:  # a whiteout: deleted
            if was == "folder":
                _deleted_tree(low, name, rel + "/", effects)
            if was != "absent":
                effects.entries.append(Effect(rel, "deleted", was, "absent", _size(before), 0))
            continue
        now = kind_of(st)
        if now == "folder":
            lower_dir = _open_dir(low, name) if was == "folder" else None
            try:
                if was == "absent":
                    effects.entries.append(Effect(rel, "created", was, now))
                elif was != "folder":
                    effects.entries.append(Effect(rel, "replaced", was, now, _size(before), 0))
                elif before is not None and stat.S_IMODE(before.st_mode) != stat.S_IMODE(st.st_mode):
                    effects.entries.append(Effect(rel, "modified", was, now))
                sub = os.open(name, _DIR, dir_fd=up)
                try:
                    if lower_dir is not None and _opaque(sub):
                        # Replaced whole: what the workspace had there and the layer has not is gone.
                        kept = set(os.listdir(sub))
                        for gone in sorted(os.listdir(lower_dir)):
                            if gone not in kept:
                                gone_st = _lstat(lower_dir, gone)
                                if kind_of(gone_st) == "folder":
                                    _deleted_tree(lower_dir, gone, f"{rel}/{gone}/", effects)
                                effects.entries.append(
                                    Effect(
                                        f"{rel}/{gone}",
                                        "deleted",
                                        kind_of(gone_st),
                                        "absent",
                                        _size(gone_st),
                                        0,
                                    )
                                )
                    _walk(sub, lower_dir, rel + "/", effects)
                finally:
                    os.close(sub)
            finally:
                if lower_dir is not None:
                    os.close(lower_dir)
            continue
        if was == "absent":
            effects.entries.append(Effect(rel, "created", was, now, 0, _size(st)))
        elif was == "folder":
            _deleted_tree(low, name, rel + "/", effects)
            effects.entries.append(Effect(rel, "replaced", was, now, 0, _size(st)))
        elif not _same(up, low, name, st, before):
            verb: Verb = (
                "emptied"
                if was == "file" and now == "file" and st.st_size == 0 and _size(before) > 0
                else "modified"
            )
            effects.entries.append(Effect(rel, verb, was, now, _size(before), _size(st)))


def _deleted_tree(low: int | None, name: str, prefix: str, effects: Effects) -> None:
    """Everything under the workspace folder `name` (deleted with it), deepest first."""
    folder = _open_dir(low, name)
    if folder is None:
        return
    try:
        for child in sorted(os.listdir(folder)):
            st = _lstat(folder, child)
            kind = kind_of(st)
            if kind == "folder":
                _deleted_tree(folder, child, f"{prefix}{child}/", effects)
            effects.entries.append(Effect(prefix + child, "deleted", kind, "absent", _size(st), 0))
    finally:
        os.close(folder)


def _same(up: int, low: int | None, name: str, st: os.stat_result, before: os.stat_result | None) -> bool:
    """Whether the layer's entry holds exactly what the workspace's does (a copy-up that changed
    nothing: a file opened for writing, touched, or written back unchanged)."""
    if before is None or low is None or kind_of(before) != kind_of(st):
        return False
    if stat.S_ISLNK(st.st_mode):
        return os.readlink(name, dir_fd=up) == os.readlink(name, dir_fd=low)
    if not stat.S_ISREG(st.st_mode):
        return False
    if st.st_size != before.st_size or stat.S_IMODE(st.st_mode) != stat.S_IMODE(before.st_mode):
        return False
    return _digest(up, name) == _digest(low, name)


def _digest(folder: int, name: str) -> str | None:
    try:
        fd = os.open(name, _FILE, dir_fd=folder)
    except OSError:
        return None
    try:
        h = hashlib.sha256()
        for chunk in iter(lambda: os.read(fd, 1 << 20), b""):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def _opaque(fd: int) -> bool:
    for attr in _OPAQUE:
        try:
            if os.getxattr(fd, attr) == b"y":
                return True
        except OSError:
            continue
    return False


def _open_dir(folder: int | None, name: str) -> int | None:
    if folder is None:
        return None
    try:
        return os.open(name, _DIR, dir_fd=folder)
    except OSError:
        return None


def _lstat(folder: int | None, name: str) -> os.stat_result | None:
    if folder is None:
        return None
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def kind_of(st: os.stat_result | None) -> Was:
    if st is None:
        return "absent"
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def _size(st: os.stat_result | None) -> int:
    return st.st_size if st is not None and stat.S_ISREG(st.st_mode) else 0
