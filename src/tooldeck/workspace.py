"""Confining file paths to a workspace root.

Every path a model gives a file tool goes through `Workspace.resolve`: relative paths are taken
from the root, `/workspace/...` is the root's virtual name, and anything that would leave the
root is refused with a message saying why: a `..` component, an absolute path elsewhere, or a
symlink (anywhere along the path) pointing outside. Results show paths relative to the root,
so the host layout does not leak to the model.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from tooldeck.errors import WorkspaceError

VIRTUAL_ROOT = "/workspace"


class Workspace:
    """A root directory the file tools may not leave."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.realpath(root))

    @classmethod
    def of(cls, root: str | os.PathLike[str] | None) -> Workspace:
        return cls(root if root is not None else Path.cwd())

    def resolve(self, path: str) -> Path:
        """The real path inside the workspace that `path` names; raises WorkspaceError otherwise."""
        if not isinstance(path, str) or not path.strip():
            raise WorkspaceError("path is empty; give a path inside the workspace, e.g. 'src/main.py'")
        if "\x00" in path:
            raise WorkspaceError("path contains a NUL byte")
        raw = path.strip()
        if raw == VIRTUAL_ROOT or raw.startswith(VIRTUAL_ROOT + "/"):
            rel = raw[len(VIRTUAL_ROOT) :].lstrip("/")
            candidate = self.root / rel
        elif os.path.isabs(raw):
            candidate = Path(raw)
        else:
            candidate = self.root / raw
        if ".." in PurePosixPath(raw.replace("\\", "/")).parts:
            raise WorkspaceError(f"path {path!r} contains '..'; use a path inside the workspace without '..'")
        real = Path(os.path.realpath(candidate))
        if not _inside(real, self.root):
            if _inside(Path(os.path.normpath(candidate)), self.root):
                raise WorkspaceError(f"path {path!r} goes through a symlink that leads outside the workspace")
            raise WorkspaceError(
                f"path {path!r} is outside the workspace; file tools only reach files under the workspace root"
            )
        return real

    def display(self, path: Path) -> str:
        """`path` as the model should see it: relative to the root ('.' for the root itself)."""
        try:
            rel = Path(os.path.realpath(path)).relative_to(self.root)
        except ValueError:
            return str(path)
        return rel.as_posix() or "."

    def key(self, path: str) -> str:
        """A normalised identity for `path` (for resource locks); never raises."""
        try:
            return str(self.resolve(path))
        except WorkspaceError:
            return os.path.normpath(path)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
