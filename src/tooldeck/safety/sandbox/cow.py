"""The folders of a command's copy-on-write view of the workspace, made and removed.

`layers(base, workspace, uid)` makes, in a fresh private folder under `base` (the tooldeck
home, which the sandbox never sees), the overlay's `upper` folder (where the command's changes
go) and its `work` folder (overlayfs's own). The upper folder's mode copies the workspace root's
and, as root, it belongs to the uid the sandbox runs as, so the root of the view is as writable
to the command as the workspace would be. On leaving, the folder and all the command left in it
are deleted (overlayfs leaves a folder of mode 000 in `work`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def layers(base: Path, workspace: Path, uid: int | None) -> Iterator[tuple[Path, Path]]:
    """(upper, work) for one command; `uid`: who the sandbox runs as when tooldeck is root."""
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    scratch = Path(tempfile.mkdtemp(prefix="cow-", dir=base))
    try:
        upper, work = scratch / "upper", scratch / "work"
        upper.mkdir(mode=0o700)
        work.mkdir(mode=0o700)
        os.chmod(upper, stat.S_IMODE(os.stat(workspace).st_mode))
        if uid is not None:
            os.chown(upper, uid, uid)
        yield upper, work
    finally:
        remove(scratch)


def remove(folder: Path) -> None:
    """Delete `folder` and everything in it, whatever the modes inside (never following links)."""

    def unlock(_func: object, path: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)

    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(folder, onerror=unlock)
