"""The driver's book of a run, whatever the engine: what waits, what runs, what is done.

Engines hand out the next item with `take`, report each result with `finished`, and report
items whose worker died under them with `lost`: such an item is run once more, then is recorded
as an error. The book calls `on_result` once per item.

A worker runs many items at once, so when it dies nobody knows which of them killed it. Each
item it held is therefore retried *alone*: only an idle worker is given a retry, and nothing
else joins it until it ends (see `runs_alone`). A second death is then the item's own doing,
and the innocent items that shared the first worker with it succeed on their retry.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

from tooldeck.batch.items import BatchItem
from tooldeck.batch.results import ItemResult
from tooldeck.errors import BatchRunError as BatchRunError

MAX_ATTEMPTS = 2  # a worker that dies mid-item gets the item retried once


Job = tuple[BatchItem, int]  # an item and its attempt number (1-based)


class BatchEngine(Protocol):
    """Runs every item of a dispatch; calls `tick` now and then so progress can be shown."""

    def run(self, dispatch: Dispatch, tick: Callable[[], None]) -> None: ...


class Dispatch:
    def __init__(self, items: Iterable[BatchItem], *, on_result: Callable[[ItemResult], None]) -> None:
        self.pending: deque[Job] = deque((item, 1) for item in items)
        self.retries: deque[Job] = deque()  # each runs alone on its worker
        self.total = len(self.pending)
        self.done = 0
        self.retried = 0
        self.on_result = on_result

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    def take(self, *, idle: bool) -> Job | None:
        """The next job for a worker; `idle` says it runs nothing now. Only an idle worker gets
        a retry (it is then busy until the retry ends: see `runs_alone`)."""
        if idle and self.retries:
            return self.retries.popleft()
        return self.pending.popleft() if self.pending else None

    def give_back(self, job: Job) -> None:
        """A job taken but never started (its worker was dying): first in line again."""
        (self.retries if runs_alone(job) else self.pending).appendleft(job)

    def finished(self, result: ItemResult) -> None:
        self.done += 1
        self.on_result(result)

    def lost(self, job: Job, why: str, *, worker: str | None = None) -> None:
        """The worker running `job` died: run it again once, else record `why` as its error."""
        item, attempt = job
        if attempt < MAX_ATTEMPTS:
            self.retried += 1
            self.retries.append((item, attempt + 1))
            return
        message = f"{why}; the item was tried {attempt} times"
        self.finished(ItemResult.failed(item, message, attempts=attempt, worker=worker))


def runs_alone(job: Job) -> bool:
    """Whether `job` must have its worker to itself: it is a retry after a worker died."""
    return job[1] > 1


def describe_exit(code: int | None) -> str:
    """A process's end, as a person would say it."""
    if code is None:
        return "it stopped answering"
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit code {code}"
