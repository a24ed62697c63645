"""tooldeck's cache folder: derived data that saves a later process work, never state.

`$TOOLDECK_CACHE_DIR` (default `$XDG_CACHE_HOME/tooldeck`, else `~/.cache/tooldeck`); an empty
value turns every cache off. Each kind of entry has its own subfolder. Entries are written only
into a folder only the user can enter, each one whole (a temporary file renamed into place), so a
reader sees an old entry or the new one, never half of one. A cache that cannot be read or
written is skipped: it only ever saves time.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def cache_folder(kind: str) -> Path | None:
    """The folder of one kind of entry (not created here); None when caching is turned off."""
    root = os.environ.get("TOOLDECK_CACHE_DIR")
    if root == "":
        return None
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "tooldeck")
    return Path(root) / kind


def write_entry(folder: Path, name: str, blob: bytes) -> None:
    """`blob` as the entry `name` of `folder`, created private if missing. Raises OSError; a
    folder others can enter (or a symlink) gets nothing written and raises PermissionError."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if folder.is_symlink() or (folder.stat().st_mode & 0o077):
        raise PermissionError(f"{folder} is not a private folder: no cache entry written there")
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".entry-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
