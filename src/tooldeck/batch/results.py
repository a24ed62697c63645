"""The output of a batch: one JSON line per item, appended and flushed as each item finishes.

    {"id": "q1", "status": "ok", "text": "...", "finish": "done", "iterations": 3,
     "tool_calls": [{"name": "read_file", "error": null}], "usage": {"input_tokens": 812,
     "output_tokens": 40}, "wall_s": 1.92, "error": null, "attempts": 1, ...}

`status` is `ok` (the agent answered), `error` (a model error, the iteration budget ran out, a
question nobody can answer, the worker died twice) or `timeout` (`--timeout` passed). Each line
is written with one `write` to a file opened for appending, so a crash of the runner loses no
finished item and leaves at most one torn line at the end, which `finished_ids` ignores and
the next run closes before it appends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tooldeck.batch.items import BatchItem, ItemId, id_key
from tooldeck.text import json_dumps

Status = Literal["ok", "error", "timeout"]


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    name: str
    error: str | None = None  # the error envelope's type when the call failed


@dataclass(frozen=True, slots=True)
class ItemResult:
    """What one item produced. `finish` is the turn's own end (done, budget_exhausted, interrupted)."""

    id: ItemId
    status: Status
    text: str = ""
    finish: str | None = None
    iterations: int = 0
    tool_calls: tuple[ToolCallRecord, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    wall_s: float = 0.0
    error: str | None = None
    attempts: int = 1
    session_id: str | None = None
    workspace: str | None = None
    worker: str | None = None
    metadata: Mapping[str, Any] | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "text": self.text,
            "finish": self.finish,
            "iterations": self.iterations,
            "tool_calls": [{"name": c.name, "error": c.error} for c in self.tool_calls],
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
            "wall_s": round(self.wall_s, 4),
            "error": self.error,
            "attempts": self.attempts,
            "session_id": self.session_id,
            "workspace": self.workspace,
            "worker": self.worker,
        }
        if self.metadata is not None:
            out["metadata"] = dict(self.metadata)
        return out

    @classmethod
    def failed(
        cls, item: BatchItem, message: str, *, attempts: int = 1, worker: str | None = None
    ) -> ItemResult:
        """An error result for an item that never produced one of its own."""
        return cls(item.id, "error", error=message, attempts=attempts, worker=worker, metadata=item.metadata)


def finished_ids(path: Path) -> tuple[set[str], int]:
    """The id keys already in a results file, and how many of its lines could not be read."""
    done: set[str] = set()
    unreadable = 0
    if not path.exists():
        return done, 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for text in fh:
            if not text.strip():
                continue
            try:
                data = json.loads(text)
                done.add(id_key(data["id"]))
            except (ValueError, KeyError, TypeError):
                unreadable += 1
    return done, unreadable


class ResultWriter:
    """Appends result lines to a file, each in one write, as soon as the item is done."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.written = 0
        self._close_torn_line()

    def _close_torn_line(self) -> None:
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with open(self.path, "rb") as fh:
            fh.seek(size - 1)
            last = fh.read(1)
        if last != b"\n":
            os.write(self._fd, b"\n")  # a line torn by a crash stays alone on its line

    def write(self, result: ItemResult) -> None:
        line = json_dumps(result.to_json(), ensure_ascii=False) + "\n"  # NaN in metadata: null
        data = line.encode("utf-8", "replace")
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        self.written += 1

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
