"""Taking a call's checkpoint: what each path it changes held just before the change.

A `Recording` is the observer of the file layer (`fs/observe.py`) for one call's handler and
everything it starts (threads, tasks, the nested calls of `execute_code`); the chain link that
sets it up is `execution/checkpointing.py`. Before a file is written, moved or deleted, or a folder made, the entry is read through the same
folder descriptor the change will use, its bytes kept in the store, and a row written. A call
that changes nothing costs no I/O. When the call ends, what it left at each path is recorded
too, so a later undo can tell whether someone changed the file since.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

from tooldeck._core.checkpoints.state import PathState, TooLarge, read_state, state_at
from tooldeck._core.checkpoints.store import CheckpointStore
from tooldeck._core.fs import Refused
from tooldeck._core.fs.observe import BEFORE_CHANGE
from tooldeck._core.workspace import Workspace
from tooldeck.errors import CheckpointError, ToolError

log = logging.getLogger("tooldeck.checkpoints")
# (reason, rule, details) -> approved?
Ask = Callable[[str, str, Mapping[str, Any]], bool]
# The recording of the call running now (nested calls join their parent's), made on first use.
CURRENT: ContextVar[Lazy | None] = ContextVar("tooldeck.checkpoints.current", default=None)


class Lazy:
    """A call's recording, made the first time it is needed: most calls change nothing, and
    for them checkpointing costs two context variables and this object."""

    __slots__ = ("_arg", "_make", "made")

    def __init__(self, make: Callable[[Any], Recording], arg: Any) -> None:
        self._make, self._arg = make, arg
        self.made: Recording | None = None

    def get(self) -> Recording:
        made = self.made
        if made is None:
            made = self.made = self._make(self._arg)
        return made

    def observe(self, folder: int, name: str) -> None:
        """The file layer's observer (see `Recording.observe`)."""
        self.get().observe(folder, name)


class Checkpointed:
    """While entered, what changes in the workspace through the file layer (in this context: the
    threads and tasks it starts too) is the checkpoint of one call, its recording made by
    `make(arg)` on the first change and finished on exit. The `checkpoint` link wraps each
    call's handler in one; code that changes the workspace for a call outside its handler
    (held effects approved later, from another process) takes its checkpoint the same way.
    Nothing is put back when the block raises: that is for the code that knows it must be all
    or none (`Recording.rollback`)."""

    __slots__ = ("_tokens", "lazy")

    def __init__(self, make: Callable[[Any], Recording], arg: Any) -> None:
        self.lazy = Lazy(make, arg)

    def __enter__(self) -> Lazy:
        lazy = self.lazy
        self._tokens = CURRENT.set(lazy), BEFORE_CHANGE.set(lazy.observe)
        return lazy

    def __exit__(self, *exc: object) -> None:
        current, observer = self._tokens
        BEFORE_CHANGE.reset(observer)
        CURRENT.reset(current)
        if self.lazy.made is not None:
            self.lazy.made.finish()


class Recording:
    """The checkpoint of one call, taken as its changes happen."""

    def __init__(
        self, store: CheckpointStore, workspace: Workspace, *, tool: str, call_id: str, session_id: str | None
    ) -> None:
        self.store = store
        self.workspace = workspace
        self.tool, self.call_id, self.session_id = tool, call_id, session_id
        self.id: int | None = None
        self.noted: dict[str, PathState] = {}
        # Paths approved to change although too large to keep: noted without their bytes.
        self.unkept: set[str] = set()
        # Asks for consent to change a file too large to keep (None: nobody can be asked).
        self.ask: Ask | None = None
        self._lock = threading.Lock()

    def observe(self, folder: int, name: str) -> None:
        """The file layer's observer: keep what `name` in `folder` holds before it changes."""
        where = os.readlink(f"/proc/self/fd/{folder}")
        rel = self.workspace.fs.relative(os.path.join(where, name))
        if not rel or rel in self.noted:
            return  # outside the workspace (the spill store, another root) or already kept
        plane = self.workspace.plane
        if plane is not None and plane.hidden and self.workspace.hides_relative(rel):
            return  # the tooldeck home inside the workspace: never recorded
        with self._lock:
            if rel in self.noted:
                return
            limit = self.store.settings.max_file_bytes
            try:
                before = read_state(folder, name, self._keep, max_bytes=limit)
            except (TooLarge, _OverBudget) as exc:
                if rel not in self.unkept and self._consents(rel, exc):
                    self.unkept.add(rel)
                if rel not in self.unkept:
                    raise ToolError(
                        f"denied: {_why_unkept(rel, exc, self.store)}, so this change could not be "
                        "undone; nothing was changed there. Ask the user to make this change",
                        type="denied",
                    ) from None
                before = PathState("file", size=exc.size)  # its bytes are not kept: undo says so
            if self.id is None:
                self.id = self.store.begin(self.tool, self.call_id, self.session_id)
            self.store.add_before(self.id, rel, before)
            self.noted[rel] = before

    def note_state(self, rel: str, before: PathState) -> None:
        """Record what `rel` held before a change that was seen afterwards (a command on the host:
        its bytes kept by the caller before the command ran)."""
        with self._lock:
            if rel in self.noted:
                return
            if self.id is None:
                self.id = self.store.begin(self.tool, self.call_id, self.session_id)
            self.store.add_before(self.id, rel, before)
            self.noted[rel] = before

    def _keep(self, data: bytes) -> str:
        """Keep a file's earlier bytes, unless they would take the store past its budget: the
        history of earlier changes is never evicted to pay for this one (_OverBudget)."""
        digest = hashlib.sha256(data).hexdigest()
        if not self.store.holds(digest) and not self.store.room_for(len(data), current=self.session_id):
            raise _OverBudget(len(data))
        return self.store.keep_bytes(data, digest=digest)

    def _consents(self, rel: str, exc: TooLarge | _OverBudget) -> bool:
        if self.ask is None:
            return False
        reason = f"{self.tool} would change {rel!r}: {_why_unkept(rel, exc, self.store)}, so the change could not be undone"
        kind = "checkpoint-too-large" if isinstance(exc, TooLarge) else "checkpoint-over-budget"
        return self.ask(reason, f"{kind}:{rel}", {"path": rel, "bytes": exc.size})

    def finish(self) -> int | None:
        """Record what the call left at each path it changed; the checkpoint's id (None: no change)."""
        with self._lock:
            if self.id is None:
                return None
            after: dict[str, PathState] = {}
            for rel in self.noted:
                try:
                    after[rel] = state_at(self.workspace.fs, rel.split("/"))
                except (Refused, OSError):
                    # Leads outside now (a folder swapped for a symlink meanwhile) or unreadable:
                    # what the call left is not known, so undoing it will need --force.
                    continue
            try:
                self.store.finish(self.id, after)
            except CheckpointError as exc:  # the call's result stands; its checkpoint is incomplete
                log.warning("checkpoint %s of %s could not be finished: %s", self.id, self.call_id, exc)
            return self.id

    def rollback(self) -> None:
        """Put back every path this recording noted (a change that failed half way): the
        workspace as it was before the call; the checkpoint is dropped."""
        from tooldeck._core.checkpoints.undo import restore

        with self._lock:
            if self.id is None:
                return
            restore(self.store, self.workspace, dict(self.noted))
            self.store.remove([self.id])
            self.id = None
            self.noted.clear()


class _OverBudget(Exception):
    """Bytes that would take the store past `checkpoints.keep.max_bytes`."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _why_unkept(rel: str, exc: TooLarge | _OverBudget, store: CheckpointStore) -> str:
    """Why the earlier bytes of `rel` cannot be kept, naming the size and the config key."""
    if isinstance(exc, TooLarge):
        limit = store.settings.max_file_bytes
        return (
            f"{rel!r} holds {exc.size} bytes, too large to checkpoint (checkpoints.max_file_bytes: {limit})"
        )
    return (
        f"keeping the {exc.size} bytes {rel!r} holds would take the checkpoint store past "
        f"checkpoints.keep.max_bytes ({store.settings.keep.max_bytes}; {store.stored_bytes()} are "
        "kept to undo earlier changes of this session and the one before, which are never "
        "evicted to make room)"
    )


def current() -> Recording | None:
    """The recording of the call running here, if it is checkpointed."""
    lazy = CURRENT.get()
    return lazy.get() if lazy is not None else None
