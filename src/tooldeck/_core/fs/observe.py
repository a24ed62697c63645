"""Who is told before a file under a `ConfinedRoot` changes.

`BEFORE_CHANGE` holds, for the code running now (a context variable: one call's handler and
the threads and tasks it starts), a function that the file layer calls with a folder
descriptor and a name just before it creates, replaces, moves or deletes that entry, or makes
that folder. The checkpoints of a call are taken this way: what is about to change is read
from the same descriptor the change goes through, before it happens.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

# (folder descriptor, entry name) -> None; may raise to stop the change (nothing is changed).
Observer = Callable[[int, str], None]

BEFORE_CHANGE: ContextVar[Observer | None] = ContextVar("tooldeck.fs.before_change", default=None)


def before_change(folder: int, name: str) -> None:
    """Tell the observer of the moment, if any, that `name` in `folder` is about to change."""
    observer = BEFORE_CHANGE.get()
    if observer is not None:
        observer(folder, name)
