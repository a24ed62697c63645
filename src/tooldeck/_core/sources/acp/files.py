"""The file system tooldeck offers an ACP agent: `fs/read_text_file` and `fs/write_text_file`.

The agent's reads and writes go through the workspace's file layer like the file tools'
(confined to the workspace, the tooldeck home veiled, no symlink leading outside), so a write
is checkpointed as part of the agent's call and `tooldeck undo` takes it back. A write to a
protected path asks the call's approvals (rule `protected-path:PATH`, as the file tools do);
with nobody to ask it is refused. Writes run in a worker thread: the checkpoint of a file too
large to keep asks for consent from there, which the event loop's own thread cannot wait for.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tooldeck._core.control_classes import PathChange
from tooldeck._core.fs import Refused
from tooldeck._core.workspace import Workspace
from tooldeck.errors import ToolError, WorkspaceError

# The largest file an agent may read or write through tooldeck, in bytes.
MAX_TEXT_BYTES = 10 * 1024 * 1024

# (reason, rule, details) -> approved?
AskAsync = Callable[[str, str, Mapping[str, Any]], Awaitable[bool]]


class _Missing(ToolError):
    """The file an agent asked to read does not exist (ACP's resource-not-found)."""


class AgentFiles:
    """One agent call's view of the workspace's text files."""

    def __init__(self, workspace: Workspace, agent: str, ask: AskAsync | None) -> None:
        self.workspace = workspace
        self.agent = agent
        self.ask = ask
        self.written: list[str] = []

    def _parts(self, path: str) -> tuple[str, ...]:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise ToolError(f"ACP agent {self.agent!r} gave a path that is not absolute: {path!r}")
        try:
            parts = self.workspace.parts(path)
        except WorkspaceError as exc:
            raise ToolError(f"ACP agent {self.agent!r} may not use {path!r}: {exc}", type="denied") from None
        if not parts:
            raise ToolError(f"ACP agent {self.agent!r} gave the workspace folder itself as a file: {path!r}")
        return parts

    async def read(self, path: str, line: int | None, limit: int | None) -> str:
        parts = self._parts(path)
        text = await asyncio.to_thread(self._read, path, parts)
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        end = len(lines) if limit is None else start + max(limit, 0)
        return "".join(lines[start:end])

    def _read(self, path: str, parts: tuple[str, ...]) -> str:
        ws = self.workspace
        with ws.errors(path, parts):
            try:
                fd = ws.fs.open(parts, os.O_RDONLY | os.O_NONBLOCK)
            except FileNotFoundError:
                raise _Missing(f"{ws.display(parts)!r} does not exist") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ToolError(f"{ws.display(parts)!r} is not a regular file")
            if info.st_size > MAX_TEXT_BYTES:
                raise ToolError(f"{ws.display(parts)!r} is {info.st_size} bytes, more than {MAX_TEXT_BYTES}")
            chunks, size = [], 0
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_TEXT_BYTES:
                    raise ToolError(f"{ws.display(parts)!r} is larger than {MAX_TEXT_BYTES} bytes")
        finally:
            os.close(fd)
        return b"".join(chunks).decode("utf-8", "replace")

    async def write(self, path: str, content: str) -> None:
        parts = self._parts(path)
        if not isinstance(content, str):
            raise ToolError(f"ACP agent {self.agent!r} sent content that is not text for {path!r}")
        data = content.encode("utf-8")
        if len(data) > MAX_TEXT_BYTES:
            raise ToolError(
                f"ACP agent {self.agent!r} sent {len(data)} bytes for {path!r}, more than {MAX_TEXT_BYTES}"
            )
        approved = await self._consent(parts, data)
        await asyncio.to_thread(self._write, path, parts, data, approved)
        self.written.append(self.workspace.display(parts))

    def _write(self, path: str, parts: tuple[str, ...], data: bytes, approved: tuple[str, ...]) -> None:
        ws = self.workspace
        with ws.locked([parts]), ws.errors(path, parts):
            ws.fs.write_atomic(parts, data, guard=ws.guard(parts, approved))

    async def _consent(self, parts: tuple[str, ...], data: bytes) -> tuple[str, ...]:
        """() when `parts` is not protected, the resolved path when its change was approved."""
        ws = self.workspace
        plane = ws.plane
        try:
            real = ws.resolve(parts)
        except Refused as exc:
            raise ws.refusal(ws.display(parts), exc) from None
        why = plane.protects(real, PathChange("file", data)) if plane is not None else None
        if why is None:
            # A git config judged by the bytes written: the guard lets it through as judged.
            return (real,) if plane is not None and plane.judged_by_content(real) else ()
        name = ws.display(parts)
        target = (plane.relative(real) if plane is not None else None) or real
        if self.ask is not None and await self.ask(
            f"ACP agent {self.agent!r} writes {name}, which is protected ({why})",
            f"protected-path:{target}",
            {"path": target, "action": "writing", "agent": self.agent},
        ):
            return (real,)
        raise ToolError(
            f"denied: ACP agent {self.agent!r} may not write {name!r}: it is protected ({why}) and the "
            "user's approval was not given",
            type="denied",
        )


def error_code(exc: ToolError) -> int:
    """The JSON-RPC error code a refused file request gets: ACP's resource-not-found for a
    missing file, invalid params otherwise (outside the workspace, protected, too large)."""
    return -32002 if isinstance(exc, _Missing) else -32602


__all__ = ["MAX_TEXT_BYTES", "AgentFiles", "error_code"]
