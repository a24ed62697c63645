"""Resolving a path inside a root one component at a time, holding a descriptor for each folder.

This is the portable way to stay inside a root, and the authority when the kernel's `openat2`
says no (it gives the precise reason, and follows absolute links that point back inside):

- each component is opened relative to the folder descriptor above it with `O_NOFOLLOW`, so a
  symlink is seen as a symlink and never followed by the kernel behind our back;
- a symlink, when the root allows them, is read (`readlinkat` on the link's own descriptor) and
  its target is resolved by the same walk: `..` pops a descriptor we hold, never a path lookup,
  and climbing above the root, or an absolute target elsewhere, is refused;
- swapping a folder for a symlink while a walk runs changes nothing for the walk: it already
  holds the folder's descriptor, or it sees the symlink.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from typing import Protocol

from tooldeck._core.fs.observe import before_change
from tooldeck.errors import RefusalKind as RefusalKind
from tooldeck.errors import Refused as Refused

MAX_LINKS = 40  # as the kernel's own limit on symlinks in one lookup
_PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


class WalkedRoot(Protocol):
    """What a walk reads of its `ConfinedRoot` (which walks with this class, so is not imported)."""

    @property
    def fd(self) -> int: ...
    @property
    def follow_symlinks(self) -> bool: ...
    def relative(self, absolute: str) -> str | None: ...


class Walker:
    """A stack of folder descriptors from the root down. Close it when done."""

    __slots__ = ("fds", "hops", "last_link", "names", "root")

    def __init__(self, root: WalkedRoot) -> None:
        self.root = root
        self.fds: list[int] = []
        self.names: list[str] = []
        self.hops = 0
        self.last_link = ""

    @property
    def top(self) -> int:
        return self.fds[-1] if self.fds else self.root.fd

    def here(self, name: str = "") -> str:
        return "/".join([*self.names, name] if name else self.names)

    def close(self) -> None:
        while self.fds:
            os.close(self.fds.pop())
        self.names.clear()

    def walk(
        self, parts: Sequence[str], *, keep_last: bool, create: bool = False, mode: int = 0o777
    ) -> str | None:
        """Enter the folders `parts` names; with `keep_last`, stop before the last component and
        return it (None when the path ends on a folder, e.g. `a/..`). `create` makes missing
        folders on the way (mkdir -p)."""
        pending = [p for p in reversed(parts) if p not in ("", ".")]
        retries = 0  # bounds the mkdir-then-enter loop when a racer keeps deleting folders
        while pending:
            name = pending.pop()
            if name == "..":
                self.up()
                continue
            if keep_last and not pending:
                return name
            if self.enter(name, pending):
                continue
            if not create:
                raise FileNotFoundError(errno.ENOENT, "no such file or folder", self.here(name))
            retries += 1
            if retries > 100:
                raise OSError(
                    errno.EAGAIN, "the folder kept changing while it was being made", self.here(name)
                )
            with contextlib.suppress(FileExistsError):
                before_change(self.top, name)
                os.mkdir(name, mode, dir_fd=self.top)
            pending.append(name)  # enter what is there now (it may have been swapped meanwhile)
        return None

    def up(self) -> None:
        if not self.fds:
            raise Refused("escape", self.last_link)
        os.close(self.fds.pop())
        self.names.pop()

    def enter(self, name: str, pending: list[str]) -> bool:
        """Step into folder `name` (a symlink's target is queued on `pending`); False if missing."""
        try:
            fd = os.open(name, _PATH_FLAGS, dir_fd=self.top)
        except FileNotFoundError:
            return False
        try:
            mode = os.fstat(fd).st_mode
            target = os.readlink("", dir_fd=fd) if stat.S_ISLNK(mode) else None
        except BaseException:
            os.close(fd)
            raise
        if stat.S_ISDIR(mode):
            self.fds.append(fd)
            self.names.append(name)
            return True
        os.close(fd)
        if target is None:
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", self.here(name))
        self.follow(name, target, pending)
        return True

    def follow(self, name: str, target: str, pending: list[str]) -> None:
        """Queue the components of symlink `name`'s `target` (or refuse the link)."""
        where = self.here(name)
        if not self.root.follow_symlinks:
            raise Refused("symlink", where)
        self.hops += 1
        if self.hops > MAX_LINKS:
            raise Refused("loop", where)
        self.last_link = where
        if target.startswith("/"):
            inside = self.root.relative(target)
            if inside is None:
                raise Refused("escape", where)
            self.close()  # an absolute target inside the root restarts from the root
            components = inside.split("/")
        else:
            components = target.split("/")
        pending.extend(reversed([c for c in components if c not in ("", ".")]))

    def link_target(self, name: str) -> str | None:
        """The target of `name` in the top folder if it is a symlink, else None."""
        try:
            fd = os.open(name, _PATH_FLAGS, dir_fd=self.top)
        except OSError:
            return None
        try:
            return os.readlink("", dir_fd=fd) if stat.S_ISLNK(os.fstat(fd).st_mode) else None
        finally:
            os.close(fd)

    def settle(self, name: str | None) -> str | None:
        """Follow `name` while it is a symlink, so the result names a non-link (or nothing yet)."""
        while name is not None:
            target = self.link_target(name)
            if target is None:
                return name
            pending: list[str] = []
            self.follow(name, target, pending)
            name = self.walk(list(reversed(pending)), keep_last=True)
        return None

    def open_final(self, name: str | None, flags: int, mode: int) -> int:
        """Open the last component with `flags`, following it (as the root allows) if a symlink."""
        for _ in range(MAX_LINKS + 4):
            if name is None:
                return os.open(".", flags | os.O_CLOEXEC, dir_fd=self.top)
            try:
                return os.open(
                    name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY, mode, dir_fd=self.top
                )
            except OSError as exc:
                # A symlink as last component: ELOOP, or ENOTDIR when a folder was asked for.
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                target = self.link_target(name)
                if target is None:
                    if self._still_not_a_link(name, exc):
                        raise
                    continue  # it was a link a moment ago and is not now: open what is there
            pending: list[str] = []
            self.follow(name, target, pending)
            name = self.walk(list(reversed(pending)), keep_last=True)
        # Every turn found a symlink at `name` on opening and none when looking (or the reverse):
        # another process is swapping it, faster than it can be opened.
        raise Refused("unstable", self.here(name) if name is not None else self.last_link)

    def _still_not_a_link(self, name: str, exc: OSError) -> bool:
        """After ELOOP/ENOTDIR on `name` that is not a symlink now: is that the real answer?
        ENOTDIR on a non-folder is; anything else was a link swapped away meanwhile."""
        try:
            mode = os.stat(name, dir_fd=self.top, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return False
        return exc.errno == errno.ENOTDIR and not stat.S_ISDIR(mode) and not stat.S_ISLNK(mode)
