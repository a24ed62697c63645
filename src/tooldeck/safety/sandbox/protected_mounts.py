"""Read-only mounts of protected workspace paths inside bubblewrap.

An existing protected path is bound read-only onto itself after the workspace bind, so it can be
neither written, replaced, renamed nor deleted (a mount point cannot be renamed or unlinked, and
a hard link cannot cross it). The folders between the workspace and it are bound onto
themselves too, so the folder holding it cannot be renamed away and rebuilt (`mv .git .old`).

A protected path that does not exist yet must not be creatable either (a new
`.git/hooks/pre-commit` or `.mcp.json`): an empty read-only placeholder takes its place — its
first missing component, a folder or an empty file — for the time of the command. bwrap makes
the mount point in the workspace, so the placeholder shows on the host while the command runs,
and is removed afterwards when it is still empty; commands running at once share one placeholder
(counted), so one ending does not unmount another's.

A file whose mere existence changes what a program does (git's `.git/commondir`: empty, git
refuses the repository) gets a placeholder with the text that means "as if absent" (`texts`):
tooldeck writes it before the command and removes it afterwards if it still holds that text.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass

from tooldeck._utils.pathnames import relative_to

_LOCK = threading.Lock()
_USERS: dict[str, int] = {}


@dataclass(frozen=True, slots=True)
class Placeholder:
    path: str
    folder: bool
    # What a file placeholder holds (None: it is empty, /dev/null bound read-only).
    text: str | None = None


def plan(
    workspace: str, protected: Sequence[str], texts: Mapping[str, str] | None = None
) -> tuple[list[str], list[Placeholder]]:
    """The bwrap arguments for `protected` (paths; a trailing '/' marks a folder) and the
    placeholders they need; `texts` gives the content of a file placeholder by its path."""
    args: list[str] = []
    pinned: set[str] = set()
    needed: list[Placeholder] = []
    for entry in protected:
        folder = entry.endswith("/")
        real = os.path.realpath(entry.rstrip("/"))
        rel = relative_to(real, workspace)
        if not rel:
            continue  # outside the workspace: the read-only root already covers it
        steps = rel.split("/")
        current = workspace
        for index, step in enumerate(steps):
            current = os.path.join(current, step)
            last = index == len(steps) - 1
            if not os.path.lexists(current) or current in _USERS:
                holder_folder = folder or not last
                text = None if holder_folder else (texts or {}).get(current)
                needed.append(Placeholder(current, holder_folder, text))
                break
            if last or os.path.islink(current) or not os.path.isdir(current):
                args += ["--ro-bind", current, current] if last else []
                break
            if current not in pinned:
                pinned.add(current)
                args += ["--bind", current, current]
    for holder in dict.fromkeys(needed):
        if holder.folder:
            args += ["--tmpfs", holder.path, "--remount-ro", holder.path]
        elif holder.text is not None and os.path.lexists(holder.path):
            args += ["--ro-bind", holder.path, holder.path]  # written by `claim`
        else:
            args += ["--ro-bind", "/dev/null", holder.path]
    return args, list(dict.fromkeys(needed))


def claim(
    workspace: str, protected: Sequence[str], texts: Mapping[str, str] | None = None
) -> list[Placeholder]:
    """The placeholders a command about to start needs, counted as in use until `release`."""
    with _LOCK:
        _, placeholders = plan(workspace, protected, texts)
        for holder in placeholders:
            users = _USERS.get(holder.path, 0)
            _USERS[holder.path] = users + 1
            if holder.text is not None and users == 0:
                _write_new(holder.path, holder.text)
    return placeholders


def _write_new(path: str, text: str) -> None:
    with suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)


def release(placeholders: Sequence[Placeholder]) -> None:
    """Remove the placeholders nobody else uses, if they are still empty."""
    with _LOCK:
        for holder in placeholders:
            left = _USERS.get(holder.path, 1) - 1
            if left > 0:
                _USERS[holder.path] = left
                continue
            _USERS.pop(holder.path, None)
            with suppress(OSError):
                if holder.folder:
                    os.rmdir(holder.path)  # only when empty
                elif holder.text is not None:
                    if _holds_only(holder.path, holder.text):
                        os.unlink(holder.path)
                elif os.lstat(holder.path).st_size == 0:
                    os.unlink(holder.path)


def _holds_only(path: str, text: str) -> bool:
    """Whether the regular file `path` holds exactly `text` (a placeholder nobody changed)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        return os.fstat(fh.fileno()).st_size == len(text.encode()) and fh.read() == text.encode()


__all__ = ["Placeholder", "claim", "plan", "release"]
