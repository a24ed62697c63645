"""`memory`: durable notes across sessions in MEMORY.md (the agent's notes) and USER.md
(what it knows about the user), both in the tooldeck home, each with a size cap.

Entries are separated by a line holding only `§`. The system prompt gets a snapshot of both
files when a session starts; writes land on disk at once but show up in the prompt of the
next session (the prompt of a running session stays stable).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tooldeck.errors import ToolError

Target = Literal["memory", "user"]
SEPARATOR = "\n§\n"
FILES: dict[str, str] = {"memory": "MEMORY.md", "user": "USER.md"}


@dataclass(frozen=True, slots=True)
class MemoryLimits:
    memory_chars: int = 2200
    user_chars: int = 1375

    def of(self, target: Target) -> int:
        return self.memory_chars if target == "memory" else self.user_chars


class MemoryFiles:
    """MEMORY.md and USER.md in one folder. Thread-safe; each write replaces the file atomically."""

    def __init__(self, home: str | Path, *, limits: MemoryLimits | None = None) -> None:
        self.home = Path(home)
        self.limits = limits or MemoryLimits()
        self._lock = threading.Lock()

    def path(self, target: Target) -> Path:
        if target not in FILES:
            raise ToolError(f"memory: unknown target {target!r}; use 'memory' or 'user'")
        return self.home / FILES[target]

    def entries(self, target: Target) -> list[str]:
        try:
            text = self.path(target).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [e.strip() for e in text.split(SEPARATOR) if e.strip()]

    def add(self, target: Target, content: str) -> str:
        content = _clean(content)
        with self._lock:
            entries = self.entries(target)
            if content in entries:
                return f"Already remembered in {FILES[target]}."
            self._write(target, [*entries, content])
        return f"Added to {FILES[target]}. {self.usage(target)}"

    def replace(self, target: Target, old_text: str, content: str) -> str:
        content = _clean(content)
        with self._lock:
            entries = self.entries(target)
            index = _find_one(target, entries, old_text)
            entries[index] = content
            self._write(target, entries)
        return f"Replaced an entry in {FILES[target]}. {self.usage(target)}"

    def remove(self, target: Target, old_text: str) -> str:
        with self._lock:
            entries = self.entries(target)
            del entries[_find_one(target, entries, old_text)]
            self._write(target, entries)
        return f"Removed an entry from {FILES[target]}. {self.usage(target)}"

    def read(self, target: Target) -> str:
        entries = self.entries(target)
        if not entries:
            return f"{FILES[target]} is empty."
        return f"{FILES[target]} ({self.usage(target)}):\n" + SEPARATOR.join(entries)

    def usage(self, target: Target) -> str:
        used = len(SEPARATOR.join(self.entries(target)))
        return f"{used}/{self.limits.of(target)} characters used."

    def snapshot(self) -> str:
        """Both files, for the system prompt at session start ("" when both are empty)."""
        parts = []
        sections: tuple[tuple[Target, str], ...] = (
            ("memory", "Your notes (MEMORY.md)"),
            ("user", "About the user (USER.md)"),
        )
        for target, title in sections:
            entries = self.entries(target)
            if entries:
                parts.append(f"## {title}\n" + "\n".join(f"- {e}" for e in entries))
        return "\n\n".join(parts)

    def _write(self, target: Target, entries: list[str]) -> None:
        text = SEPARATOR.join(entries)
        cap = self.limits.of(target)
        if len(text) > cap:
            raise ToolError(
                f"memory: {FILES[target]} would hold {len(text)} characters, over its cap of {cap}; "
                "replace or remove entries first (action='replace' or 'remove')"
            )
        path = self.path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(text + ("\n" if text else ""), encoding="utf-8")
        os.replace(tmp, path)


def _clean(content: str) -> str:
    content = content.strip()
    if not content:
        raise ToolError("memory: the content is empty")
    if "§" in content.splitlines():
        raise ToolError("memory: an entry may not contain a line holding only '§'")
    return content


def _find_one(target: Target, entries: list[str], old_text: str) -> int:
    if not old_text or not old_text.strip():
        raise ToolError("memory: give `old_text`, a piece of the entry to change")
    hits = [i for i, e in enumerate(entries) if old_text.strip() in e]
    if not hits:
        raise ToolError(f"memory: no entry in {FILES[target]} contains {old_text!r}")
    if len(hits) > 1:
        raise ToolError(
            f"memory: {len(hits)} entries in {FILES[target]} contain {old_text!r}; quote more of it"
        )
    return hits[0]


def memory_action(
    files: MemoryFiles,
    action: Literal["add", "replace", "remove", "read"],
    target: Target,
    content: str | None,
    old_text: str | None,
) -> str:
    if action == "read":
        return files.read(target)
    if action == "remove":
        return files.remove(target, old_text or "")
    if content is None:
        raise ToolError(f"memory {action}: give the `content` to store")
    if action == "add":
        return files.add(target, content)
    return files.replace(target, old_text or "", content)
