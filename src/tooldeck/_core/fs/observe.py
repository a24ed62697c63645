"""Who is told before a file under a `ConfinedRoot` changes.

`WRITES` holds the byte budget of the call running now (`sandbox.limits.disk_mb`): every file
written into the workspace through the file layer is counted against it before it is written.

`BEFORE_CHANGE` holds, for the code running now (a context variable: one call's handler and
the threads and tasks it starts), a function that the file layer calls with a folder
descriptor and a name just before it creates, replaces, moves or deletes that entry, or makes
that folder. The checkpoints of a call are taken this way: what is about to change is read
from the same descriptor the change goes through, before it happens.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar

from tooldeck.errors import ToolError

MIB = 1024 * 1024

# (folder descriptor, entry name) -> None; may raise to stop the change (nothing is changed).
Observer = Callable[[int, str], None]

BEFORE_CHANGE: ContextVar[Observer | None] = ContextVar("tooldeck.fs.before_change", default=None)


def before_change(folder: int, name: str) -> None:
    """Tell the observer of the moment, if any, that `name` in `folder` is about to change."""
    observer = BEFORE_CHANGE.get()
    if observer is not None:
        observer(folder, name)


class WriteBudget:
    """The bytes one call may write into the workspace under `root` (nested calls share it)."""

    def __init__(self, root: str, limit_mb: int) -> None:
        self.root, self.limit_mb = root, limit_mb
        self.written = 0
        self._lock = threading.Lock()

    def room(self) -> int:
        return self.limit_mb * MIB - self.written

    def charge(self, where: str, size: int) -> None:
        """Count `size` bytes about to be written in the folder `where`; past the budget, raise
        (nothing is written)."""
        if where != self.root and not where.startswith(self.root.rstrip("/") + "/"):
            return  # not the workspace (the spill store of long results, another root)
        with self._lock:
            if self.written + size > self.limit_mb * MIB:
                raise ToolError(
                    f"{self.over(self.written + size)}; that write was not made. Write less at once"
                )
            self.written += size

    def over(self, total: int | None) -> str:
        """Why a call that would write `total` bytes (None: more than a layer of the budget's
        size holds) is refused."""
        amount = f"{total} bytes" if total is not None else "more than its copy-on-write layer holds"
        return (
            f"the call would write {amount} into the workspace, past what one call may write "
            f"(sandbox.limits.disk_mb = {self.limit_mb} MiB)"
        )


WRITES: ContextVar[WriteBudget | None] = ContextVar("tooldeck.fs.writes", default=None)


def charge_write(where: str, size: int) -> None:
    """Count a write of `size` bytes in the folder `where` against the call's budget, if any."""
    budget = WRITES.get()
    if budget is not None:
        budget.charge(where, size)


def current() -> WriteBudget | None:
    """The write budget of the call running here, if any."""
    return WRITES.get()
