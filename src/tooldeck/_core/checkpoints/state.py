"""What one path holds at a moment: nothing, a file (its bytes' digest and mode), a symlink
(its target) or a folder (its mode); read from a folder descriptor without following the entry."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from tooldeck._core.fs import ConfinedRoot

Kind = Literal["absent", "file", "symlink", "folder", "other"]


@dataclass(frozen=True, slots=True)
class PathState:
    """What a workspace path held at a moment: its kind, mode, size and content digest (or
    symlink target), as a checkpoint records it."""

    kind: Kind
    mode: int = 0
    size: int = 0
    # A file's sha256 (its bytes are in the store), a symlink's target; otherwise empty.
    digest: str = ""
    target: str = ""

    def same_as(self, other: PathState) -> bool:
        """The same content: kind, permissions and bytes (or target); times are not compared."""
        if self.kind != other.kind:
            return False
        if self.kind == "file":
            return self.digest == other.digest and self.mode == other.mode
        if self.kind == "symlink":
            return self.target == other.target
        if self.kind in ("folder", "other"):  # a special file's mode holds its type too
            return self.mode == other.mode
        return self.kind == "absent"

    def describe(self) -> str:
        if self.kind == "file":
            return f"a file of {self.size} bytes, mode {self.mode:o}"
        if self.kind == "symlink":
            return f"a symlink to {self.target!r}"
        if self.kind == "folder":
            return f"a folder, mode {self.mode:o}"
        if self.kind == "other" and (stat.S_ISFIFO(self.mode) or stat.S_ISSOCK(self.mode)):
            what = "a named pipe" if stat.S_ISFIFO(self.mode) else "a socket"
            return f"{what}, mode {stat.S_IMODE(self.mode):o}"
        return "nothing" if self.kind == "absent" else "a special file"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind in ("file", "folder", "other"):
            out["mode"] = self.mode
        if self.kind == "file":
            out.update(size=self.size, digest=self.digest)
        if self.kind == "symlink":
            out["target"] = self.target
        return out

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> PathState:
        return cls(
            kind=doc["kind"],
            mode=int(doc.get("mode", 0)),
            size=int(doc.get("size", 0)),
            digest=str(doc.get("digest", "")),
            target=str(doc.get("target", "")),
        )


ABSENT = PathState("absent")
_FOLDER = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class TooLarge(Exception):
    """A file bigger than the store may keep."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def read_state(
    folder: int, name: str, keep: Callable[[bytes], str] | None = None, *, max_bytes: int | None = None
) -> PathState:
    """The state of `name` in `folder` (not followed). `keep` stores a file's bytes and returns
    their digest (without it they are only hashed); a file over `max_bytes` raises TooLarge."""
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return ABSENT
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return PathState("symlink", target=os.readlink(name, dir_fd=folder))
    if stat.S_ISDIR(st.st_mode):
        return PathState("folder", mode=mode)
    if not stat.S_ISREG(st.st_mode):
        return PathState("other", mode=st.st_mode)  # its type kept: a pipe is not a socket
    if max_bytes is not None and st.st_size > max_bytes:
        raise TooLarge(st.st_size)
    fd = os.open(name, _READ, dir_fd=folder)
    try:
        now = os.fstat(fd).st_mode
        if not stat.S_ISREG(now):  # swapped since the stat above
            return PathState("other", mode=now)
        data = _read_all(fd)
    finally:
        os.close(fd)
    digest = keep(data) if keep is not None else hashlib.sha256(data).hexdigest()
    return PathState("file", mode=mode, size=len(data), digest=digest)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def state_at(fs: ConfinedRoot, parts: Sequence[str]) -> PathState:
    """What the workspace's own entry at `parts` holds now, following no symlink on the way: a
    path under a folder that is now a symlink (or a file) has no entry of the workspace's, so it
    is absent, wherever the link points (inside the workspace or out)."""
    folder = os.dup(fs.fd)
    try:
        for name in parts[:-1]:
            try:
                below = os.open(name, _FOLDER, dir_fd=folder)
            except (FileNotFoundError, NotADirectoryError):
                return ABSENT
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a symlink where a folder was: not the workspace's own
                    return ABSENT
                raise
            os.close(folder)
            folder = below
        if fs.veiled(folder, parts[-1]):
            return ABSENT  # the tooldeck home inside the workspace: never the tools' to see
        return read_state(folder, parts[-1])
    finally:
        os.close(folder)
