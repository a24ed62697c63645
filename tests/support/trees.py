"""A folder as data, byte for byte: every entry's kind, permissions and bytes (or target)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

Entry = tuple[str, int, bytes]


def snapshot(root: Path) -> dict[str, Entry]:
    """Every entry under `root` (`.git` included), symlinks not followed: (kind, mode, content)."""
    out: dict[str, Entry] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("symlink", 0, os.fsencode(os.readlink(path)))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("folder", mode, b"")
            else:
                out[rel] = ("file", mode, Path(path).read_bytes())
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    return out


def differences(before: dict[str, Entry], after: dict[str, Entry]) -> list[str]:
    """The paths whose entry differs (added, removed or changed), sorted."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
