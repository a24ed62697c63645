"""A small `.gitignore` matcher for the pure-Python `search_files` (when `rg` is absent).

It follows the gitignore rules that matter for search: comments and blank lines, `!` negation
(last match wins), a trailing `/` for directories only, patterns with a slash anchored to their
file's folder, `*`, `?`, `[...]` and `**`. An ignored directory is not entered (git cannot
re-include a file inside one either). Hidden files and folders are skipped, as `rg` does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


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
    """The rules in force in one folder: its own `.gitignore` and those of the folders above it."""

    def __init__(self, levels: tuple[tuple[Path, tuple[Rule, ...]], ...] = ()) -> None:
        self.levels = levels

    def enter(self, folder: Path) -> IgnoreStack:
        file = folder / ".gitignore"
        if not file.is_file():
            return self
        try:
            rules = tuple(parse(file.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            return self
        return IgnoreStack((*self.levels, (folder, rules)))

    def ignored(self, path: Path, is_dir: bool) -> bool:
        verdict = False
        for base, rules in self.levels:
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            for rule in rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(rel):
                    verdict = not rule.negated
        return verdict


def walk(root: Path, start: Path) -> Iterator[Path]:
    """Files under `start` (sorted), skipping hidden entries and what `.gitignore` files exclude.

    `.gitignore` files from `root` down to `start` apply, as git (and rg) apply parent rules.
    """
    stack = IgnoreStack()
    parts = start.relative_to(root).parts
    for depth in range(len(parts) + 1):
        folder = root.joinpath(*parts[:depth])
        if folder.is_dir():
            stack = stack.enter(folder)
    if start.is_file():
        yield start
        return
    yield from _walk(start, stack)


def _walk(folder: Path, stack: IgnoreStack) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if stack.ignored(path, is_dir):
            continue
        if is_dir:
            yield from _walk(path, stack.enter(path))
        elif entry.is_file():
            yield path
