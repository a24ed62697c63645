"""The regular expression `search_files` matches lines with, and the time bound on a search.

Python's own `re` holds the interpreter lock for as long as one match runs and cannot be
interrupted, so a pattern like `(x+x+)+y` on a long line would stall the whole process past
any call timeout. Lines are matched with the `regex` engine instead, which releases the lock
while it matches (`concurrent=True`), so the rest of the process keeps running.

Its own `timeout=` counts CPU time, which on a busy machine runs slower than the clock, so the
clock is kept elsewhere: `run_bounded` runs the whole search on a thread of its own and waits
for it until the deadline (the call's timeout less a margin, so the model is told why the
search stopped). Past the deadline, or when the call is cancelled, the search is told to stop:
it stops before its next line, its `rg` child is killed, and the match in progress ends at the
engine's own timeout.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tooldeck._utils.processes import CANCEL_SOURCE, current_cancel_event
from tooldeck.core import ExecutionConfig, ToolContext, service
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    import regex

T = TypeVar("T")
# What is left of the call's timeout for stopping the search and shaping the result.
MARGIN_S = 0.5
_POLL_S = 0.05


def search_budget(context: ToolContext | None) -> float | None:
    """Seconds a search may take: the call's timeout (the executor's `ExecutionConfig`) less a
    margin. None for a handler called as a plain function, without a context: the search's own
    default applies."""
    if context is None:
        return None
    return _budget(service(context, ExecutionConfig).timeout_for(None))


def _budget(timeout: float) -> float:
    return timeout - MARGIN_S if timeout > 4 * MARGIN_S else timeout * 0.75


# What a search called without a budget may take: the default call timeout, less the margin.
DEFAULT_BUDGET_S = _budget(ExecutionConfig.default_timeout_s)


class LinePattern:
    """A compiled pattern, the search's deadline, and the event that tells the search to stop."""

    def __init__(self, pattern: str, *, ignore_case: bool = False, budget_s: float | None = None) -> None:
        import regex  # loaded only when content is searched

        flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0)
        try:
            self._compiled: regex.Pattern[str] = regex.compile(pattern, flags)
        except (regex.error, ValueError, RecursionError, OverflowError) as exc:
            raise ToolError(f"invalid regular expression {pattern!r}: {exc}", retryable=True) from None
        self.pattern = pattern
        self.budget_s = DEFAULT_BUDGET_S if budget_s is None else budget_s
        self.deadline = time.monotonic() + self.budget_s
        self.stop = threading.Event()
        self.matching = False

    def search(self, text: str) -> bool:
        """Whether `text` has a match; raises ToolError once told to stop or out of time."""
        if self.stop.is_set():
            raise self.too_long()
        self.matching = True
        try:
            left = max(self.deadline - time.monotonic(), 0.01)
            return self._compiled.search(text, timeout=left, concurrent=True) is not None
        except TimeoutError:
            raise self.too_long() from None
        finally:
            self.matching = False

    def too_long(self) -> ToolError:
        """The error for a search past its deadline: the pattern's fault if it was matching."""
        if not self.matching:
            return ToolError(
                f"the search for {self.pattern!r} took longer than {self.budget_s:g} s and was "
                "stopped; narrow the path or file_glob",
                type="timeout",
                retryable=True,
            )
        return ToolError(
            f"the regular expression {self.pattern!r} took too long to match (stopped after "
            f"{self.budget_s:g} s): it makes the matcher backtrack. Use a simpler pattern (avoid "
            "nested repeats such as (a+)+), or search for literal text by escaping special characters",
            type="timeout",
            retryable=True,
        )


def run_bounded(work: Callable[[], T], pattern: LinePattern, cancelled: threading.Event | None = None) -> T:
    """`work()` on a thread of its own, waited for until the pattern's deadline (by the clock)."""
    cancelled = cancelled or current_cancel_event()
    done = threading.Event()
    values: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        CANCEL_SOURCE.set(pattern.stop)  # an rg child dies when the search is told to stop
        try:
            values.append(work())
        except BaseException as exc:  # boundary: re-raised in the waiting thread below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=contextvars.copy_context().run, args=(target,), daemon=True)
    thread.start()
    while not done.wait(min(_POLL_S, max(pattern.deadline - time.monotonic(), 0.0))):
        if time.monotonic() >= pattern.deadline or (cancelled is not None and cancelled.is_set()):
            error = pattern.too_long()
            pattern.stop.set()
            raise error
    if errors:
        raise errors[0]
    return values[0]
