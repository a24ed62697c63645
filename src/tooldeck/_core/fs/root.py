"""`ConfinedRoot`: file operations that cannot leave a root folder, whatever races around them.

Every operation starts from a descriptor of the root opened once, and names paths as tuples of
components relative to it (the caller has already refused `..` and NUL bytes; this layer
refuses again whatever would climb out). There is no check-then-open anywhere:

- with `openat2` (Linux 5.6+), one call opens the path with RESOLVE_BENEATH |
  RESOLVE_NO_MAGICLINKS (plus RESOLVE_NO_SYMLINKS when the root allows no links); the kernel
  refuses escapes atomically. A refusal (EXDEV, ELOOP) or a rename racing the lookup (EAGAIN)
  is handed to the component walk (`walker.py`), which says precisely why, or follows an
  absolute symlink that points back inside;
- without it, the component walk does everything.

Symlinks that stay inside the root are followed (when `follow_symlinks`, the workspace's
choice: projects use them, and refusing them would break ordinary repositories); a link that
leads outside, at any depth, is refused. Writes are atomic: a temporary file in the final
folder's descriptor, synced, permissions set, then `renameat` over the target in that same
descriptor. A symlink planted at the target is replaced, never written through.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Literal

from tooldeck._core.fs import kernel
from tooldeck._core.fs.observe import before_change, charge_write
from tooldeck._core.fs.walker import Refused, Walker
from tooldeck._utils.pathnames import relative_to

__all__ = ["ConfinedRoot", "Entry", "Guard", "Refused", "default_file_mode"]

# Outcomes of the fast path that the component walk must redo: an escape or a link the kernel
# refused (it may be an absolute link pointing back inside), or a rename racing the lookup.
_REDO = frozenset({errno.EXDEV, errno.ELOOP, errno.EAGAIN, errno.ENOSYS})
EntryKind = Literal["file", "dir", "link", "other"]
# Whether a resolved path (with the file's (st_dev, st_ino) when known) must stay out of sight.
Veil = Callable[[str, "tuple[int, int] | None"], bool]
# Called with the host path an operation is about to change, in the folder it holds open (so no
# rename or symlink swap after the call can redirect the change); raises to refuse it.
Guard = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    kind: EntryKind


class ConfinedRoot:
    """A folder the operations below cannot leave. Holds one descriptor; `close()` it (or let it
    be collected)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        follow_symlinks: bool = True,
        use_openat2: bool | None = None,
        veil: Veil | None = None,
    ) -> None:
        self.path = os.path.realpath(path)
        # What is veiled is reported missing by every operation and left out of listings.
        self.veil = veil
        self._aliases = tuple({self.path, os.path.abspath(path)})
        self.follow_symlinks = follow_symlinks
        self.fd = os.open(self.path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        self._closer = weakref.finalize(self, os.close, self.fd)
        self.fast = kernel.openat2_available() if use_openat2 is None else use_openat2
        resolve = kernel.RESOLVE_BENEATH | kernel.RESOLVE_NO_MAGICLINKS
        self._resolve = resolve if follow_symlinks else resolve | kernel.RESOLVE_NO_SYMLINKS

    def close(self) -> None:
        self._closer()

    def child(self, parts: Sequence[str], *, create: bool = False, mode: int = 0o777) -> ConfinedRoot:
        """The subfolder `parts` as a root of its own, opened through this root's descriptor (so
        a symlink planted in its place is refused, not followed); `create` makes it with `mode`."""
        if create:
            self.makedirs(parts, mode=mode)
        fd = self.open(parts, os.O_PATH | os.O_DIRECTORY)
        sub = object.__new__(ConfinedRoot)
        sub.path = os.path.join(self.path, *parts)
        sub._aliases = (sub.path,)
        sub.follow_symlinks, sub.fast, sub._resolve = self.follow_symlinks, self.fast, self._resolve
        sub.veil = self.veil
        sub.fd = fd
        sub._closer = weakref.finalize(sub, os.close, fd)
        return sub

    def relative(self, absolute: str) -> str | None:
        """`absolute` relative to the root ('' for the root), or None if it names somewhere else."""
        for alias in self._aliases:
            if (rel := relative_to(absolute, alias)) is not None:
                return rel
        return None

    # -- opening ---------------------------------------------------------------------------

    def open(self, parts: Sequence[str], flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
        """A descriptor for `parts` opened with `flags`; raises Refused, or OSError as `open` does
        (FileNotFoundError for what is veiled)."""
        fd = self._open(parts, flags, mode)
        if self.veil is not None:
            st = os.fstat(fd)
            if self.veil(_fd_path(fd), (st.st_dev, st.st_ino)):
                os.close(fd)
                raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/".join(parts))
        return fd

    def real_path(self, parts: Sequence[str]) -> str:
        """The host path `parts` leads to (in-root symlinks followed; veiled or not)."""
        fd = self._open(parts, os.O_PATH, 0)
        try:
            return _fd_path(fd)
        finally:
            os.close(fd)

    def veiled(self, folder_fd: int, name: str) -> bool:
        """Whether the entry `name` of the open folder is veiled (by its path, not followed)."""
        if self.veil is None:
            return False
        try:
            st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
            ident: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            ident = None
        return self.veil(os.path.join(_fd_path(folder_fd), name), ident)

    def _check_entry(self, folder_fd: int, name: str, parts: Sequence[str]) -> None:
        if self.veiled(folder_fd, name) or (self.veil is not None and self.veil(_fd_path(folder_fd), None)):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/".join(parts))

    def _open(self, parts: Sequence[str], flags: int, mode: int) -> int:
        if self.fast:
            # openat2 is strict: O_PATH takes no other open flags, and mode only with O_CREAT.
            extra = os.O_CLOEXEC if flags & os.O_PATH else os.O_CLOEXEC | os.O_NOCTTY
            try:
                return kernel.openat2(
                    self.fd,
                    "/".join(parts) or ".",
                    flags | extra,
                    mode if flags & os.O_CREAT else 0,
                    self._resolve,
                )
            except OSError as exc:
                if exc.errno not in _REDO:
                    raise
        walker = Walker(self)
        try:
            return walker.open_final(walker.walk(parts, keep_last=True), flags, mode)
        finally:
            walker.close()

    def stat(self, parts: Sequence[str]) -> os.stat_result:
        """`stat` of what `parts` names (in-root symlinks followed)."""
        fd = self.open(parts, os.O_PATH)
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)

    def exists(self, parts: Sequence[str]) -> bool:
        try:
            self.stat(parts)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    @contextmanager
    def parent(self, parts: Sequence[str], *, create: bool = False) -> Iterator[tuple[int, str]]:
        """The folder descriptor holding the last component of `parts`, and that component's
        name; a last component that is a symlink is followed (inside the root) first. `create`
        makes the missing folders on the way."""
        if not parts or parts[-1] in ("", ".", ".."):
            raise IsADirectoryError(errno.EISDIR, "a folder, not a file", "/".join(parts) or ".")
        fd = self._fast_folder(parts[:-1], create=create)
        if fd is not None:
            try:
                if not _is_link(fd, parts[-1]):
                    self._check_entry(fd, parts[-1], parts)
                    yield fd, parts[-1]
                    return
            finally:
                os.close(fd)
        walker = Walker(self)
        try:
            name = walker.settle(walker.walk(parts, keep_last=True, create=create))
            if name is None:
                raise IsADirectoryError(errno.EISDIR, "a folder, not a file", "/".join(parts))
            self._check_entry(walker.top, name, parts)
            yield walker.top, name
        finally:
            walker.close()

    def _fast_folder(self, parts: Sequence[str], *, create: bool) -> int | None:
        if not self.fast:
            return None
        try:
            return self.open(parts, os.O_PATH | os.O_DIRECTORY)
        except FileNotFoundError:
            if create:
                return None
            raise

    # -- folders ---------------------------------------------------------------------------

    def makedirs(self, parts: Sequence[str], *, mode: int = 0o777) -> None:
        """mkdir -p, inside the root (an in-root symlink on the way is followed); new folders get
        `mode` (less the umask)."""
        walker = Walker(self)
        try:
            walker.walk(parts, keep_last=False, create=True, mode=mode)
        finally:
            walker.close()

    def listdir(self, parts: Sequence[str]) -> list[Entry]:
        """The entries of folder `parts`, sorted by name, each with its own kind (links not followed)."""
        fd = self.open(parts, os.O_RDONLY | os.O_DIRECTORY)
        try:
            return [e for e in scan(fd) if not self.veiled(fd, e.name)]
        finally:
            os.close(fd)

    # -- writing ---------------------------------------------------------------------------

    def write_atomic(
        self,
        parts: Sequence[str],
        data: bytes,
        *,
        mode: int | None = None,
        exclusive: bool = False,
        guard: Guard | None = None,
    ) -> bool:
        """Replace (or create, with its folders) the file `parts` with `data` in one rename.

        Permissions: `mode`, else the replaced file's, else 0666 less the umask of the moment. `exclusive`
        refuses to replace an existing file (FileExistsError). `guard` sees the path written. True
        when a file was replaced.
        """
        with self.parent(parts, create=True) as (folder, name):
            _guarded(guard, folder, name)
            charge_write(_fd_path(folder), len(data))
            try:
                old: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                old = None
            if old is not None and stat.S_ISDIR(old.st_mode):
                raise IsADirectoryError(errno.EISDIR, "a folder, not a file", "/".join(parts))
            if old is not None and exclusive:
                raise FileExistsError(errno.EEXIST, "already exists", "/".join(parts))
            keep = stat.S_IMODE(old.st_mode) if old is not None and stat.S_ISREG(old.st_mode) else None
            temp = _write_temp(folder, name, data, mode if mode is not None else keep)
            try:
                if exclusive:
                    _link_new(folder, temp, name)
                else:
                    os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            finally:
                with suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=folder)
            return old is not None

    def unlink(self, parts: Sequence[str], *, guard: Guard | None = None) -> None:
        """Remove the file (or symlink: it is removed itself, not its target) `parts` names."""
        walker = Walker(self)
        try:
            name = walker.walk(parts, keep_last=True)
            if name is None:
                raise IsADirectoryError(errno.EISDIR, "a folder, not a file", "/".join(parts))
            self._check_entry(walker.top, name, parts)
            _guarded(guard, walker.top, name)
            os.unlink(name, dir_fd=walker.top)
        finally:
            walker.close()

    def rename(self, src: Sequence[str], dst: Sequence[str], *, guard: Guard | None = None) -> None:
        """Move file `src` to `dst` (folders made as needed); never replaces an existing `dst`.
        `guard` sees both paths."""
        source = Walker(self)
        try:
            name = source.walk(src, keep_last=True)
            if name is None:
                raise IsADirectoryError(errno.EISDIR, "a folder, not a file", "/".join(src))
            self._check_entry(source.top, name, src)
            _guarded(guard, source.top, name)
            with self.parent(dst, create=True) as (folder, new_name):
                _guarded(guard, folder, new_name)
                _link_new(source.top, name, new_name, dst_folder=folder, move=True)
        finally:
            source.close()

    # -- restoring (undo) ------------------------------------------------------------------

    def write_symlink(self, parts: Sequence[str], target: str) -> None:
        """Replace (or create) the entry `parts` with a symlink to `target`, in one rename."""
        with self.parent_entry(parts) as (folder, name):
            before_change(folder, name)
            temp = f".{name[:80]}.{os.urandom(6).hex()}.tmp"
            os.symlink(target, temp, dir_fd=folder)
            try:
                os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            finally:
                with suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=folder)

    def make_node(self, parts: Sequence[str], mode: int) -> None:
        """Make the special file `parts` - a named pipe or a unix socket, by the type bits of
        `mode` - with exactly its permissions, in place of any file or link there. A device
        cannot be made (a command in the sandbox cannot make one either)."""
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            raise OSError(errno.EPERM, "only named pipes and sockets can be made", "/".join(parts))
        with self.parent_entry(parts) as (folder, name):
            before_change(folder, name)
            temp = f".{name[:40]}.{os.urandom(6).hex()}.tmp"
            if stat.S_ISFIFO(mode):
                os.mkfifo(temp, 0o600, dir_fd=folder)
            else:  # bound through the folder's descriptor (a short name: sockets' paths are capped)
                with socket.socket(socket.AF_UNIX) as sock:
                    sock.bind(f"/proc/self/fd/{folder}/{temp}")
            try:
                made = os.open(temp, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
                try:  # through the descriptor: the name is never followed
                    os.chmod(f"/proc/self/fd/{made}", stat.S_IMODE(mode))
                finally:
                    os.close(made)
                os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            finally:
                with suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=folder)

    def remove_entry(self, parts: Sequence[str]) -> None:
        """Remove the file, symlink or empty folder `parts` names itself (a symlink is not followed)."""
        with self.parent_entry(parts) as (folder, name):
            before_change(folder, name)
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(name, dir_fd=folder)
            else:
                os.unlink(name, dir_fd=folder)

    def make_folder(self, parts: Sequence[str], mode: int) -> None:
        """Make the folder `parts` (its parents too) with exactly `mode`, or set an existing one's."""
        with self.parent_entry(parts) as (folder, name):
            before_change(folder, name)
            with suppress(FileExistsError):
                os.mkdir(name, 0o700, dir_fd=folder)
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            try:
                os.fchmod(fd, mode)
            finally:
                os.close(fd)

    @contextmanager
    def parent_entry(self, parts: Sequence[str], *, create: bool = True) -> Iterator[tuple[int, str]]:
        """The folder holding the last component of `parts` (made as needed with `create`) and
        that name, the last component itself not followed (a symlink there is the entry)."""
        if not parts or parts[-1] in ("", ".", ".."):
            raise IsADirectoryError(errno.EISDIR, "the workspace root itself", "/".join(parts) or ".")
        walker = Walker(self)
        try:
            walker.walk(parts[:-1], keep_last=False, create=create)
            self._check_entry(walker.top, parts[-1], parts)
            yield walker.top, parts[-1]
        finally:
            walker.close()


def scan(folder_fd: int) -> list[Entry]:
    """The entries of an open folder, sorted by name (symlinks reported as links, not followed)."""
    out: list[Entry] = []
    with os.scandir(folder_fd) as entries:
        for entry in entries:
            if entry.is_symlink():
                kind: EntryKind = "link"
            elif entry.is_dir(follow_symlinks=False):
                kind = "dir"
            elif entry.is_file(follow_symlinks=False):
                kind = "file"
            else:
                kind = "other"
            out.append(Entry(entry.name, kind))
    out.sort(key=lambda e: e.name)
    return out


def _fd_path(fd: int) -> str:
    """The path the kernel has for an open descriptor."""
    return os.readlink(f"/proc/self/fd/{fd}")


def _guarded(guard: Guard | None, folder: int, name: str) -> None:
    """Just before `name` in `folder` changes: the caller's guard, then the observer of the
    moment (`observe.py`), which records what is there."""
    if guard is not None:
        guard(os.path.join(_fd_path(folder), name))
    before_change(folder, name)


def _is_link(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def _write_temp(folder: int, name: str, data: bytes, perm: int | None) -> str:
    """A synced temporary file beside `name` holding `data`, with permissions `perm`; None lets
    the kernel apply the umask (and a default ACL) of the moment, as for any new file: a umask
    read earlier and remembered would be stale once the process changes it."""
    temp = f".{name[:80]}.{os.urandom(6).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o666 if perm is None else 0o600, dir_fd=folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if perm is not None:
            os.fchmod(fd, perm)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder)
        raise
    os.close(fd)
    return temp


def _link_new(folder: int, old: str, new: str, *, dst_folder: int | None = None, move: bool = False) -> None:
    """Put `old` at `new` unless `new` exists (FileExistsError); `move` also drops `old`."""
    target = folder if dst_folder is None else dst_folder
    try:
        kernel.renameat2(folder, old, target, new, kernel.RENAME_NOREPLACE)
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOSYS, errno.EINVAL):  # old kernel or a file system without it
            raise
    os.link(old, new, src_dir_fd=folder, dst_dir_fd=target, follow_symlinks=False)
    if move:
        os.unlink(old, dir_fd=folder)


_umask_lock = threading.Lock()


def default_file_mode() -> int:
    """0666 less the process umask as it is now (a new file without a default ACL gets this).

    Read from /proc, which changes nothing; elsewhere reading the umask means setting it, which
    the lock keeps to one thread of tooldeck at a time."""
    with suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    with _umask_lock:
        value = os.umask(0o077)  # the strictest value meanwhile: a file made now errs on privacy
        os.umask(value)
    return 0o666 & ~value
