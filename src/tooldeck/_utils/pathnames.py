"""Whether a path lies within a folder, compared as text: '/a/bc' is not within '/a/b'.

Both sides are taken as they are (resolve symlinks first where that matters); a folder may end
in '/', and '/' holds every absolute path.
"""

from __future__ import annotations


def is_within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` itself or lies below it."""
    base = folder.rstrip("/")
    return path == (base or "/") or path.startswith(base + "/")


def relative_to(path: str, folder: str) -> str | None:
    """`path` relative to `folder` ('' for the folder itself), or None when it lies elsewhere."""
    if not is_within(path, folder):
        return None
    return path[len(folder.rstrip("/")) + 1 :]
