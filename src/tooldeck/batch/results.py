"""The output of a batch: one JSON line per item, appended and flushed as each item finishes.

    {"id": "q1", "status": "ok", "text": "...", "finish": "done", "iterations": 3,
     "tool_calls": [{"name": "read_file", "error": null}], "usage": {"input_tokens": 812,
     "output_tokens": 40, "cache_read_input_tokens": 640, "cache_creation_input_tokens": 0},
     "wall_s": 1.92, "error": null, "attempts": 1, ...}

`status` is `ok` (the agent answered), `error` (a model error, the iteration budget ran out, a
question nobody can answer, the worker died twice), `timeout` (`--timeout` passed, or its grace
too and the driver ended the item) or `awaiting_approval` (the item waits for decisions on its
`pending` calls; once given, with `--resume`, its new line is appended and the last line of an
id is its result). `retried_after` says why an item ran twice (`{"cause":
"node_lost", "detail": ..., "worker": ...}`, see `LossCause`); null when it ran once. Each line
is written with one `write` to a file opened for appending, so a crash of the runner loses no
finished item and leaves at most one torn line at the end: the start of a result line with no
newline after it, which `finished_ids` ignores and the next run cuts off before it appends.
Any other line that is not a result object means the file is something else, and is refused.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tooldeck._utils.jsonl import id_key
from tooldeck._utils.text import json_dumps
from tooldeck.batch.items import BatchItem, ItemId

# `awaiting_approval`: the item stopped at calls that need consent (`approvals.unattended:
# interrupt`); they are listed in the result's `pending`, and the item is not a failure.
Status = Literal["ok", "error", "timeout", "awaiting_approval"]
# Why a worker went away with items in hand: its process died (a crash, a tool killing it), its
# node was lost (removed, crashed, partitioned), the out-of-memory killer chose it, the cluster
# preempted its node (spot instances, the autoscaler draining it), or it stopped answering and
# the driver ended it (an item ran past its timeout and grace).
LossCause = Literal["worker_died", "node_lost", "oom", "preempted", "unresponsive"]


@dataclass(frozen=True, slots=True)
class WorkerLoss:
    """A worker lost while it held an item: what happened, in a word and in Ray's or the OS's words."""

    cause: LossCause
    detail: str
    worker: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause, "detail": self.detail, "worker": self.worker}


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
    reasoning_tokens: int = 0  # the part of output_tokens spent reasoning, where the provider says
    cache_read_input_tokens: int = 0  # the part of input_tokens read from the prompt cache
    cache_creation_input_tokens: int = 0  # the part of input_tokens written to it
    wall_s: float = 0.0
    error: str | None = None
    attempts: int = 1
    session_id: str | None = None
    workspace: str | None = None
    worker: str | None = None
    metadata: Mapping[str, Any] | None = field(default=None)
    retried_after: WorkerLoss | None = None  # the loss that made this a second attempt
    # The calls the item waits for approval of (call_id, tool, arguments, rule, reason, subject).
    pending: tuple[Mapping[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "text": self.text,
            "finish": self.finish,
            "iterations": self.iterations,
            "tool_calls": [{"name": c.name, "error": c.error} for c in self.tool_calls],
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "cache_read_input_tokens": self.cache_read_input_tokens,
                "cache_creation_input_tokens": self.cache_creation_input_tokens,
            }
            | ({"reasoning_tokens": self.reasoning_tokens} if self.reasoning_tokens else {}),
            "wall_s": round(self.wall_s, 4),
            "error": self.error,
            "attempts": self.attempts,
            "session_id": self.session_id,
            "workspace": self.workspace,
            "worker": self.worker,
            "retried_after": self.retried_after.to_json() if self.retried_after is not None else None,
        }
        if self.metadata is not None:
            out["metadata"] = dict(self.metadata)
        if self.pending:
            out["pending"] = [dict(p) for p in self.pending]
        return out

    @classmethod
    def failed(
        cls, item: BatchItem, message: str, *, attempts: int = 1, worker: str | None = None
    ) -> ItemResult:
        """An error result for an item that never produced one of its own."""
        return cls(item.id, "error", error=message, attempts=attempts, worker=worker, metadata=item.metadata)


class NotResultsFile(ValueError):
    """A file that holds something other than tooldeck batch result lines."""


STATUSES = ("ok", "error", "timeout", "awaiting_approval")
RESULT_START = b'{"id":'  # how every result line begins, so also a line cut mid-write


def finished_ids(path: Path) -> tuple[set[str], int]:
    """The id keys already in a results file, and 1 when its last line was cut by a crash (else 0).
    Raises `NotResultsFile` naming the first line that is neither a result nor such a remnant."""
    done: set[str] = set()
    if not path.exists():
        return done, 0
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, 1):
            key = _result_key(raw)
            if key is not None:
                done.add(key)  # a whole last line may lack only its newline
            elif raw.endswith(b"\n") or not raw.startswith(RESULT_START):
                raise NotResultsFile(f"line {number} is not a result line: {_shown(raw)}")
            else:
                return done, 1  # the last line, cut by a crash
    return done, 0


def awaiting_results(path: Path) -> dict[str, dict[str, Any]]:
    """The result lines of the items whose latest line in `path` says `awaiting_approval`, by
    id key: a resumed item's new line is appended after the one it continues, so the last wins."""
    latest: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return latest
    with open(path, "rb") as fh:
        for raw in fh:
            key = _result_key(raw)
            if key is not None:
                latest[key] = json.loads(raw)
    return {key: line for key, line in latest.items() if line["status"] == "awaiting_approval"}


def _result_key(raw: bytes) -> str | None:
    """The id key of a result line; None when the line is not one."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("status") not in STATUSES:
        return None
    item_id = value.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, str | int):
        return None
    return id_key(item_id)


def _last_line_start(path: Path, size: int, chunk: int = 65536) -> int:
    """Where the text after the file's last newline begins (`size` when it ends with one)."""
    with open(path, "rb") as fh:
        end = size
        while end > 0:
            begin = max(0, end - chunk)
            fh.seek(begin)
            found = fh.read(end - begin).rfind(b"\n")
            if found >= 0:
                return begin + found + 1
            end = begin
    return 0


def _shown(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    return repr(text[:60] + ("..." if len(text) > 60 else ""))


class ResultWriter:
    """Appends result lines to a file, each in one write, as soon as the item is done."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Never through a symbolic link; a file that is not a regular one is refused below.
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        self.written = 0
        try:
            self._mend_last_line()
        except BaseException:
            self.close()
            raise

    def _mend_last_line(self) -> None:
        """Cut a result line torn by a crash; end a whole last line that lacks its newline."""
        if not stat.S_ISREG(os.fstat(self._fd).st_mode):
            raise OSError(f"{self.path} is not a regular file")
        size = os.fstat(self._fd).st_size
        start = _last_line_start(self.path, size)
        with open(self.path, "rb") as fh:
            fh.seek(start)
            tail = fh.read()
        if not tail:
            return
        if _result_key(tail) is not None:
            os.write(self._fd, b"\n")
        elif tail.startswith(RESULT_START):
            os.ftruncate(self._fd, start)  # its item was not finished: it runs again
        else:
            raise OSError(f"{self.path} is not a tooldeck results file")

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
