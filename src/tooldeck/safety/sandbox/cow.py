"""The folders of a command's copy-on-write view of the workspace, made and removed.

`layers(base, workspace, uid)` makes, in a fresh private folder under `base` (the tooldeck
home, which the sandbox never sees), the overlay's `upper` folder (where the command's changes
go) and its `work` folder (overlayfs's own). The upper folder's mode copies the workspace root's
and, as root, it belongs to the uid the sandbox runs as, so the root of the view is as writable
to the command as the workspace would be. On leaving, the folder and all the command left in it
are deleted (overlayfs leaves a folder of mode 000 in `work`). As root, the folder is a tmpfs of
`sandbox.limits.disk_mb` first, so what a command writes into its view is bounded while it runs
(the tmpfs is memory: what a command writes there counts in its cgroup's memory bound).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

MIB = 1024 * 1024
# Room beyond the command's own bytes: overlayfs's work folder, folders and the last partial page.
SLACK = MIB
MS_NOSUID, MS_NODEV, MNT_DETACH = 0x2, 0x4, 0x2


@contextlib.contextmanager
def layers(
    base: Path, workspace: Path, uid: int | None, *, size_mb: int | None = None
) -> Iterator[tuple[Path, Path]]:
    """(upper, work) for one command; `uid`: who the sandbox runs as when tooldeck is root;
    `size_mb`: the layers are a filesystem of that size (a tmpfs; only root can mount one here),
    so a command cannot write more than that into its view."""
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    scratch = Path(tempfile.mkdtemp(prefix="cow-", dir=base))
    mounted = False
    try:
        if size_mb is not None:
            _mount_tmpfs(scratch, size_mb * MIB + SLACK)
            mounted = True
        upper, work = scratch / "upper", scratch / "work"
        upper.mkdir(mode=0o700)
        work.mkdir(mode=0o700)
        os.chmod(upper, stat.S_IMODE(os.stat(workspace).st_mode))
        if uid is not None:
            os.chown(upper, uid, uid)
        yield upper, work
    finally:
        if mounted:
            _libc().umount2(os.fsencode(scratch), MNT_DETACH)
        remove(scratch)


def sized() -> bool:
    """Whether the layers can be a filesystem of their own size here (root mounts a tmpfs)."""
    return os.geteuid() == 0


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(folder: Path, size: int) -> None:
    options = f"size={size},mode=0700".encode()
    if _libc().mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"cannot mount a tmpfs for the copy-on-write layer: {os.strerror(errno)}")


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
