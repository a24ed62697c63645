"""What a folder holds, entry by entry, and what changed between two looks: the slower way to
see a command's effects where no copy-on-write view can be mounted (a command on the host).

`scan(root)` walks the folder through descriptors that never follow a symlink and records each
entry's kind, permissions, size, identity (device, inode, modification and change times) and, for
a symlink, its target; `changed(before, after)` lists the paths whose entry differs. A file
whose identity is the same is the same file with the same bytes (the change time cannot be set
back by a program), so only the files that changed need reading. Its cost is one walk of the
whole folder, which is why a copy-on-write view is preferred.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from tooldeck.safety.sandbox.effects_view import Was
from tooldeck.safety.sandbox.effects_view import kind_of as kind_of

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Seen:
    kind: Was  # file, folder, symlink, other (never absent)
    mode: int
    size: int
    identity: tuple[int, int, int, int]
    target: str = ""


def scan(root: str, skip: Callable[[str], bool] = lambda rel: False) -> dict[str, Seen]:
    """Every entry under `root` by its path relative to it (`skip(rel)`: left out, with all below)."""
    out: dict[str, Seen] = {}
    top = os.open(root, _DIR)
    try:
        _scan(top, "", out, skip)
    finally:
        os.close(top)
    return out


def _scan(folder: int, prefix: str, out: dict[str, Seen], skip: Callable[[str], bool]) -> None:
    for entry in os.scandir(folder):
        rel = prefix + entry.name
        if skip(rel):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        kind = kind_of(st)
        target = os.readlink(entry.name, dir_fd=folder) if kind == "symlink" else ""
        out[rel] = Seen(
            kind,
            stat.S_IMODE(st.st_mode),
            st.st_size if kind == "file" else 0,
            (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns),
            target,
        )
        if kind == "folder":
            try:
                sub = os.open(entry.name, _DIR, dir_fd=folder)
            except OSError:
                continue
            try:
                _scan(sub, rel + "/", out, skip)
            finally:
                os.close(sub)


def changed(before: dict[str, Seen], after: dict[str, Seen]) -> list[str]:
    """The paths whose entry was made, removed or changed, parents before children."""
    paths = [p for p in before.keys() | after.keys() if before.get(p) != after.get(p)]
    return sorted(paths, key=lambda p: (p.count("/"), p))
