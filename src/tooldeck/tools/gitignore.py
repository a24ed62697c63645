"""A small `.gitignore` matcher for the pure-Python `search_files` (when `rg` is absent).

It follows the gitignore rules that matter for search: comments and blank lines, `!` negation
(last match wins), a trailing `/` for directories only, patterns with a slash anchored to their
file's folder, `*`, `?`, `[...]` and `**`. An ignored directory is not entered (git cannot
re-include a file inside one either). Hidden files and folders are skipped, as `rg` does, and so
are symlinks (rg does not follow them either). The walk holds a descriptor per folder level.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from tooldeck.core import ConfinedRoot, scan_folder
from tooldeck.errors import Refused


@dataclass(frozen=True, slots=True)
class Rule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def translate(pattern: str) -> tuple[str, bool]:
    """A gitignore glob as a regex over paths relative to its folder; and whether it is anchored."""
    anchored = "/" in pattern
    pattern = pattern.lstrip("/")
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    body = "".join(out)
    return (body if anchored else f"(?:.*/)?{body}"), anchored


def parse(text: str) -> list[Rule]:
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        if not line.endswith("\\ "):
            line = line.rstrip()
        negated = line.startswith("!")
        if negated or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        regex, _ = translate(line)
        try:
            rules.append(Rule(re.compile(f"^{regex}$"), negated, dir_only))
        except re.error:
            continue  # git ignores a pattern it cannot read; so do we
    return rules


class IgnoreStack:
    """The rules in force in one folder: its own `.gitignore` and those of the folders above it.

    Folders are named by their path relative to the workspace root ("" for the root).
    """

    def __init__(self, levels: tuple[tuple[str, tuple[Rule, ...]], ...] = ()) -> None:
        self.levels = levels

    def enter(self, folder: str, folder_fd: int) -> IgnoreStack:
        text = _read_gitignore(folder_fd)
        if text is None:
            return self
        return IgnoreStack((*self.levels, (folder, tuple(parse(text)))))

    def ignored(self, path: str, is_dir: bool) -> bool:
        verdict = False
        for base, rules in self.levels:
            if base:
                if not path.startswith(base + "/"):
                    continue
                rel = path[len(base) + 1 :]
            else:
                rel = path
            for rule in rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(rel):
                    verdict = not rule.negated
        return verdict


def _read_gitignore(folder_fd: int) -> str | None:
    try:
        fd = os.open(
            ".gitignore", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder_fd
        )
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, 1 << 20).decode("utf-8", errors="replace")
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A file met by `walk`: its path relative to the root, and its name in an open folder
    (valid until the walk moves on), so it is opened without a path lookup."""

    path: str
    folder: int
    name: str
    opened: int = -1  # a descriptor already open on the file (the start of a walk given as a file)

    def open(self) -> int:
        """A read descriptor of the file (a symlink swapped in since the scan is refused: ELOOP)."""
        if self.opened >= 0:
            return os.dup(self.opened)
        return os.open(
            self.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=self.folder
        )


def walk(root: ConfinedRoot, start: tuple[str, ...]) -> Iterator[FoundFile]:
    """Files under `start` (sorted), skipping hidden entries, symlinks and what `.gitignore`
    files exclude. `.gitignore` files from the root down to `start` apply, as git (and rg)
    apply parent rules. Folders are entered by descriptor, never through a symlink."""
    stack = IgnoreStack()
    for depth in range(len(start)):
        stack = _enter(root, start[:depth], stack)
    fd = root.open(start, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            yield FoundFile("/".join(start), -1, start[-1] if start else "", fd)
        elif stat.S_ISDIR(mode):
            yield from _walk(root, fd, "/".join(start), stack.enter("/".join(start), fd))
    finally:
        os.close(fd)


def _enter(root: ConfinedRoot, folder: tuple[str, ...], stack: IgnoreStack) -> IgnoreStack:
    try:
        fd = root.open(folder, os.O_PATH | os.O_DIRECTORY)
    except (OSError, Refused):
        return stack
    try:
        return stack.enter("/".join(folder), fd)
    finally:
        os.close(fd)


def _walk(root: ConfinedRoot, folder_fd: int, folder: str, stack: IgnoreStack) -> Iterator[FoundFile]:
    try:
        entries = scan_folder(folder_fd)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.kind not in ("dir", "file"):
            continue
        path = f"{folder}/{entry.name}" if folder else entry.name
        if stack.ignored(path, entry.kind == "dir") or root.veiled(folder_fd, entry.name):
            continue
        if entry.kind == "file":
            yield FoundFile(path, folder_fd, entry.name)
            continue
        try:
            sub = os.open(
                entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder_fd
            )
        except OSError:  # gone, or swapped for a symlink since the scan: not entered
            continue
        try:
            yield from _walk(root, sub, path, stack.enter(path, sub))
        finally:
            os.close(sub)
