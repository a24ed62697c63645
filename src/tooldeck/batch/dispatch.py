"""The driver's book of a run, whatever the engine: what waits, what runs where, what is done.

Engines hand out the next item with `take`, report each result with `finished`, and report
items whose worker went away under them with `lost`: such an item is run once more, then is
recorded as an error. The book calls `on_result` exactly once per item: a result for an item
that is no longer running (already ended by the driver, or reported twice) is dropped.

A worker runs many items at once, so when it dies nobody knows which of them killed it. Each
item it held is therefore retried *alone*: only an idle worker is given a retry, and nothing
else joins it until it ends (see `runs_alone`). A second death is then the item's own doing,
and the innocent items that shared the first worker with it succeed on their retry. While
retries wait, one busy worker at a time is left to drain (it gets no new items) so that a
retry never waits for the whole queue.

With a per-item timeout, each running item has a deadline: its timeout plus a grace for the
result to come back. An item past it is recorded as `timeout` by the driver itself (`overdue`,
`expire`), and the engine ends its worker, which is stuck or unreachable.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from tooldeck._utils.jsonl import id_key
from tooldeck.batch.items import BatchItem
from tooldeck.batch.results import ItemResult, WorkerLoss
from tooldeck.errors import BatchRunError as BatchRunError

MAX_ATTEMPTS = 2  # a worker that dies mid-item gets the item retried once


def grace_for(timeout_s: float) -> float:
    """How long past its timeout the driver waits for an item's result before ending it itself:
    enough for the result to travel back from a busy worker, bounded for long timeouts."""
    return min(60.0, max(5.0, timeout_s / 2))


@dataclass(frozen=True, slots=True)
class Job:
    """An item as handed to a worker: its attempt (1-based), the loss that made it a retry, and
    once taken, which worker holds it since when (monotonic seconds)."""

    item: BatchItem
    attempt: int = 1
    after: WorkerLoss | None = None
    worker: str | None = None
    started: float = 0.0

    @property
    def key(self) -> str:
        return self.item.key


class BatchEngine(Protocol):
    """Runs every item of a dispatch; calls `tick` now and then so progress can be shown."""

    def run(self, dispatch: Dispatch, tick: Callable[[], None]) -> None: ...


class Dispatch:
    def __init__(
        self,
        items: Iterable[BatchItem],
        *,
        on_result: Callable[[ItemResult], None],
        on_notice: Callable[[str], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.pending: deque[Job] = deque(Job(item) for item in items)
        self.retries: deque[Job] = deque()  # each runs alone on its worker
        self.running: dict[str, Job] = {}  # item key -> the job a worker holds
        self.total = len(self.pending)
        self.done = 0
        self.retried = 0
        self.workers_live = 0  # set by the engine: workers able to take items now
        self.workers_asked = 0
        self.on_result = on_result
        self.on_notice = on_notice
        self.deadline_s = timeout_s + grace_for(timeout_s) if timeout_s is not None else None
        self._draining: str | None = None  # the worker left to drain for a waiting retry

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    @property
    def waiting(self) -> int:
        """Items not yet handed to a worker (first attempts and retries)."""
        return len(self.pending) + len(self.retries)

    def take(self, worker: str, *, idle: bool) -> Job | None:
        """The next job for `worker`; `idle` says it runs nothing now. Only an idle worker gets a
        retry (it is then busy until the retry ends: see `runs_alone`)."""
        if self.retries:
            if self._draining not in (None, worker) and not self._holds(self._draining):
                self._draining = None  # the worker it waited for is gone
            if idle:
                if self._draining == worker:
                    self._draining = None
                return self._start(self.retries.popleft(), worker)
            if self._draining in (None, worker):
                self._draining = worker  # this one gets nothing more until it is idle
                return None
        return self._start(self.pending.popleft(), worker) if self.pending else None

    def _holds(self, worker: str) -> bool:
        return any(job.worker == worker for job in self.running.values())

    def _start(self, job: Job, worker: str) -> Job:
        job = dataclasses.replace(job, worker=worker, started=time.monotonic())
        self.running[job.key] = job
        return job

    def give_back(self, job: Job) -> None:
        """A job taken but never started (its worker was dying): first in line again."""
        if self.running.pop(job.key, None) is None:
            return
        (self.retries if runs_alone(job) else self.pending).appendleft(job)

    def finished(self, result: ItemResult) -> bool:
        """Record a worker's result; False (and nothing recorded) when its item is not running."""
        job = self.running.pop(id_key(result.id), None)
        if job is None:
            return False
        if job.after is not None:
            result = dataclasses.replace(result, retried_after=job.after)
        self._record(result)
        return True

    def lost(self, job: Job, loss: WorkerLoss) -> None:
        """The worker running `job` went away: run it again once, else record the loss as its error."""
        if self.running.pop(job.key, None) is None:
            return  # already ended (the driver timed it out before ending its worker)
        if job.attempt < MAX_ATTEMPTS:
            self.retried += 1
            self.retries.append(Job(job.item, job.attempt + 1, after=loss))
            return
        message = f"{loss.detail}; the item was tried {job.attempt} times"
        failed = ItemResult.failed(job.item, message, attempts=job.attempt, worker=loss.worker)
        self._record(dataclasses.replace(failed, retried_after=job.after))

    def overdue(self, now: float | None = None) -> list[Job]:
        """Running jobs past their timeout and grace (none without a timeout)."""
        if self.deadline_s is None:
            return []
        now = time.monotonic() if now is None else now
        return [job for job in self.running.values() if now - job.started > self.deadline_s]

    def expire(self, job: Job) -> None:
        """End an overdue job as `timeout` without its worker's answer (the engine then ends the
        worker, which did not end the item itself)."""
        if self.running.pop(job.key, None) is None:
            return
        why = (
            f"the item did not finish within its timeout and grace ({self.deadline_s or 0:g} s in all) "
            f"and its worker {job.worker} did not end it; the driver ended the worker"
        )
        result = ItemResult(
            job.item.id,
            "timeout",
            error=why,
            attempts=job.attempt,
            worker=job.worker,
            metadata=job.item.metadata,
            wall_s=time.monotonic() - job.started,
            retried_after=job.after,
        )
        self._record(result)

    def notice(self, text: str) -> None:
        """Something a person watching should know now (a cluster smaller than asked, a worker joining)."""
        if self.on_notice is not None:
            self.on_notice(text)

    def _record(self, result: ItemResult) -> None:
        self.done += 1
        self.on_result(result)


def runs_alone(job: Job) -> bool:
    """Whether `job` must have its worker to itself: it is a retry after a worker died."""
    return job.attempt > 1


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
