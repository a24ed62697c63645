"""Confining file paths to a workspace root.

A path a model gives a file tool is first read as words (`Workspace.parts`): relative paths are
taken from the root, `/workspace/...` is the root's virtual name, an absolute host path is
accepted when it lies under the root; a `..` component, any other absolute path, NUL and
control characters, lone surrogates and over-long names are refused with a message saying why.

Then every access goes through `Workspace.fs`, a `tooldeck._core.fs.ConfinedRoot`: files are opened
relative to a descriptor of the root, component by component or with `openat2`
(RESOLVE_BENEATH), so a folder swapped for a symlink mid-call cannot lead a read or a write
outside. Symlinks that stay inside are followed; one that leads out is refused ("goes through
a symlink that leads outside the workspace"). Results show paths relative to the root, so the
host layout does not leak to the model.
"""

from __future__ import annotations

import errno
import os
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tooldeck._core.control_plane import ControlPlane
from tooldeck._core.fs import ConfinedRoot, Refused
from tooldeck.errors import ToolError, WorkspaceError

VIRTUAL_ROOT = "/workspace"
MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255
_STRIPES = [threading.Lock() for _ in range(64)]
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})


class Workspace:
    """A root directory the file tools may not leave."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        use_openat2: bool | None = None,
        plane: ControlPlane | None = None,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self._given = os.path.abspath(root)
        self._use_openat2 = use_openat2
        # What the tools may not change unasked (protected) or see at all (hidden).
        self.plane = plane
        self._fs: ConfinedRoot | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, root: str | os.PathLike[str] | None) -> Workspace:
        return cls(root if root is not None else Path.cwd())

    @property
    def fs(self) -> ConfinedRoot:
        """The root's descriptor-based file access (opened on first use)."""
        if self._fs is None:
            with self._lock:
                if self._fs is None:
                    try:
                        veil = self.plane.hides if self.plane is not None else None
                        self._fs = ConfinedRoot(self.root, use_openat2=self._use_openat2, veil=veil)
                    except OSError as exc:
                        raise ToolError(
                            f"the workspace folder {str(self.root)!r} cannot be opened: {exc.strerror}",
                            type="unavailable",
                        ) from None
        return self._fs

    # -- paths -----------------------------------------------------------------------------

    def parts(self, path: str) -> tuple[str, ...]:
        """`path` as components relative to the root; raises WorkspaceError if it may not be used."""
        if not isinstance(path, str) or not path.strip():
            raise WorkspaceError("path is empty; give a path inside the workspace, e.g. 'src/main.py'")
        problem = _bad_path(path)
        if problem:
            raise WorkspaceError(problem)
        raw = path.strip()
        if ".." in raw.replace("\\", "/").split("/"):
            raise WorkspaceError(f"path {path!r} contains '..'; use a path inside the workspace without '..'")
        rel = self._relative(raw)
        if rel is None:
            raise WorkspaceError(
                f"path {path!r} is outside the workspace; file tools only reach files under the workspace root "
                f"(give it relative to the root, or as {VIRTUAL_ROOT}/...)"
            )
        parts = tuple(p for p in rel.split("/") if p not in ("", "."))
        for part in parts:
            if len(os.fsencode(part)) > MAX_NAME_BYTES:
                raise WorkspaceError(f"a name in path {path[:80]!r}... is longer than {MAX_NAME_BYTES} bytes")
        if self.plane is not None and self.plane.hidden and self.plane.hides(self.resolve(parts)):
            # Reported as missing, without suggestions: the model must not learn the home is there.
            raise ToolError(f"file not found: {path!r}", retryable=True)
        return parts

    def resolve(self, parts: Sequence[str]) -> str:
        """The host path `parts` leads to, in-root symlinks followed (for a path that does not
        exist yet: its nearest existing folder's, resolved, with the rest appended)."""
        fs = self.fs
        for depth in range(len(parts), -1, -1):
            try:
                base = fs.real_path(parts[:depth])
            except (OSError, Refused):
                continue
            return os.path.join(base, *parts[depth:])
        return os.path.join(self.root, *parts)

    def protected(self, parts: Sequence[str]) -> str | None:
        """Why changing `parts` needs consent (a protected path), or None."""
        if self.plane is None:
            return None
        return self.plane.protects(self.resolve(parts))

    def guard(self, parts: Sequence[str], approved: Iterable[str] = ()) -> Callable[[str], None] | None:
        """What the file layer calls with the host path it is about to change for `parts`: it
        refuses a protected one unless it is one of the `approved` (resolved) paths. The check
        before the call resolved the path once; a symlink or folder swapped since (by a command
        running meanwhile) would otherwise lead the change into a protected path unasked."""
        plane = self.plane
        if plane is None:
            return None
        allowed = frozenset(approved)
        name = self.display(parts)

        def check(real: str) -> None:
            why = plane.protects(real)
            if why is not None and real not in allowed:
                raise ToolError(
                    f"denied: {name!r} now leads to a protected path ({why}; a symlink or folder on "
                    "the way changed after the path was checked); nothing was changed there. Leave it as it is, or ask the user to make this change",
                    type="denied",
                )

        return check

    def hides_relative(self, rel: str) -> bool:
        """Whether a path relative to the root, without symlinks in it, is hidden."""
        return self.plane is not None and self.plane.hides_relative(rel)

    def _relative(self, raw: str) -> str | None:
        if raw == VIRTUAL_ROOT or raw.startswith(VIRTUAL_ROOT + "/"):
            return raw[len(VIRTUAL_ROOT) :]
        if raw.startswith("~"):
            raw = os.path.expanduser(raw)
        if not raw.startswith("/"):
            return raw
        for base in dict.fromkeys((str(self.root), self._given)):
            if raw == base or raw.startswith(base.rstrip("/") + "/"):
                return raw[len(base.rstrip("/")) :]
        return None

    @staticmethod
    def display(parts: Sequence[str]) -> str:
        """A path as the model should see it: relative to the root ('.' for the root itself)."""
        return "/".join(parts) or "."

    def key(self, path: str) -> str:
        """A normalised identity for `path` (for resource locks); never raises.

        This is a boundary: it feeds the scheduler's lock table before the call runs, so any
        failure (a bad path, a folder vanishing mid-walk) falls back to the text of the path;
        the call itself then reports the problem to the model.
        """
        try:
            return self.display(self.parts(path))
        except Exception:  # boundary: see the docstring
            return os.path.normpath(path) if isinstance(path, str) and "\x00" not in path else repr(path)

    # -- errors ----------------------------------------------------------------------------

    @contextmanager
    def errors(self, path: str, parts: Sequence[str]) -> Iterator[None]:
        """Turns what the file layer raises into failures the model can act on."""
        try:
            yield
        except Refused as exc:
            raise self.refusal(path, exc) from None
        except FileNotFoundError:
            raise self.not_found(path, parts) from None
        except NotADirectoryError as exc:
            where = f" ({exc.filename!r} is a file)" if exc.filename else ""
            raise ToolError(
                f"path {path!r} goes through a file as if it were a folder{where}", retryable=True
            ) from None
        except IsADirectoryError:
            raise ToolError(f"{path!r} is a folder, not a file", retryable=True) from None
        except PermissionError:
            raise ToolError(f"permission denied: {path!r}") from None
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                raise WorkspaceError(f"path {path[:80]!r}... is too long for the file system") from None
            raise ToolError(f"cannot access {path!r}: {exc.strerror or exc}", retryable=True) from None

    def not_found(self, path: str, parts: Sequence[str]) -> ToolError:
        """A 'not found' failure that suggests similar names (siblings first, then same name)."""
        from difflib import get_close_matches

        hints: list[str] = []
        depth = len(parts) - 1
        while depth > 0 and not self._is_folder(parts[:depth]):
            depth -= 1
        if parts:
            try:
                names = [e.name for e in self.fs.listdir(parts[:depth])]
            except (OSError, Refused):
                names = []
            close = get_close_matches(parts[depth], names, n=3, cutoff=0.5)  # the first missing name
            hints += [self.display((*parts[:depth], name)) for name in close]
            hints += [h for h in self._same_name(parts[-1]) if h not in hints]
        hint = f"; did you mean: {', '.join(tell_apart(hints[:5]))}?" if hints else ""
        return ToolError(f"file not found: {path!r}{hint}", retryable=True)

    def _is_folder(self, parts: Sequence[str]) -> bool:
        import stat

        try:
            return stat.S_ISDIR(self.fs.stat(parts).st_mode)
        except (OSError, Refused):
            return False

    def _same_name(self, name: str, budget: int = 5000) -> list[str]:
        """Files named `name` (any case) anywhere in the workspace, breadth first, bounded."""
        found: list[str] = []
        queue: list[tuple[str, ...]] = [()]
        while queue and budget > 0 and len(found) < 3:
            folder = queue.pop(0)
            try:
                entries = self.fs.listdir(folder)
            except (OSError, Refused):
                continue
            budget -= len(entries) + 1
            for entry in entries:
                if entry.kind == "dir" and not entry.name.startswith(".") and entry.name not in SKIP_DIRS:
                    queue.append((*folder, entry.name))
                elif entry.kind == "file" and entry.name.lower() == name.lower():
                    found.append(self.display((*folder, entry.name)))
        return found

    def refusal(self, path: str, exc: Refused) -> WorkspaceError:
        where = f" ({exc.where!r})" if exc.where else ""
        if exc.kind == "escape":
            return WorkspaceError(
                f"path {path!r} goes through a symlink that leads outside the workspace{where}; "
                "file tools only reach files under the workspace root"
            )
        if exc.kind == "loop":
            return WorkspaceError(f"path {path!r} goes through too many symlinks{where} (a loop?)")
        if exc.kind == "unstable":
            return WorkspaceError(
                f"path {path!r} kept changing while it was opened{where}: another program is swapping a "
                "folder or symlink on the way; nothing was read or written there"
            )
        return WorkspaceError(f"path {path!r} goes through a symlink{where}, which is not allowed here")

    # -- locking ---------------------------------------------------------------------------

    @contextmanager
    def locked(self, keys: Iterable[Sequence[str]]) -> Iterator[None]:
        """Hold the locks of these paths (read-modify-write of a file must not interleave, also
        across executors sharing this process). Striped, taken in one order: no deadlock."""
        stripes = sorted(
            {zlib.crc32(f"{self.root}\0{self.display(k)}".encode("utf-8", "replace")) % 64 for k in keys}
        )
        with ExitStack() as stack:
            for index in stripes:
                stack.enter_context(_STRIPES[index])
            yield


def _bad_path(path: str) -> str | None:
    if len(path) > MAX_PATH_CHARS:
        return f"path is {len(path)} characters long; the limit is {MAX_PATH_CHARS}"
    for index, char in enumerate(path):
        code = ord(char)
        if code == 0:
            return "path contains a NUL byte"
        if 0xD800 <= code <= 0xDFFF:
            return f"path contains a lone surrogate {char!r} at position {index}, which is not valid Unicode"
        if code < 0x20 or code == 0x7F:
            return f"path contains a control character {char!r} at position {index}; file names with control characters are not supported"
    return None


def tell_apart(names: Sequence[str]) -> list[str]:
    """`names` as shown to the model, with `\\u` escapes for any that would look like another
    (the same text once Unicode-normalised, e.g. NFC and NFD `cafe`) or that hold invisible or
    control characters, so that the model can tell which one it means."""
    import unicodedata
    from collections import Counter

    forms = Counter(unicodedata.normalize("NFC", name) for name in names)
    return [
        _escaped(name) if forms[unicodedata.normalize("NFC", name)] > 1 or _invisible(name) else name
        for name in names
    ]


def _invisible(name: str) -> bool:
    import unicodedata

    return any(
        unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp") or (c.isspace() and c != " ")
        for c in name
    )


def _escaped(name: str) -> str:
    """Printable ASCII as is; every other character as its `\\uXXXX` (or `\\UXXXXXXXX`) escape."""
    return "".join(c if c.isascii() and c.isprintable() else _escape(c) for c in name)


def _escape(c: str) -> str:
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
