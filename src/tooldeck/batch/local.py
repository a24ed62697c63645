"""The local engine: a pool of worker processes, each running many items at once on asyncio.

The driver (the `tooldeck batch` process) starts `workers` fresh Python processes
(`python -m tooldeck.batch.pool_worker`, not forks: nothing of the driver's threads or open
files leaks into them, and no `__main__` module is imported again) and keeps exactly
`concurrency` items in flight in each, so it always knows which items a worker holds. A worker that dies
(a segfault, the OOM killer, a tool that kills its own process) is replaced, and the items it
held are retried once, each alone on a worker (see `Dispatch.lost`). A worker holding an item past
its timeout and grace is stuck (stopped, deadlocked in native code): the item is recorded as a
timeout and the worker is killed like one that died. When the driver dies, even by SIGKILL, each
worker sees its pipe close and exits, abandoning its items: nothing keeps calling the model
for a run nobody will record.

Wire protocol: pickled tuples over a socket pair (see `pool_worker`).
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

from tooldeck._utils.jsonl import id_key
from tooldeck.batch.dispatch import BatchRunError, Dispatch, Job, describe_exit, runs_alone
from tooldeck.batch.results import WorkerLoss
from tooldeck.batch.worker import WorkerSpec

START_FAILURES_ALLOWED = 3  # workers dying before they are ready: the run cannot work
POLL_S = 0.2


@dataclass
class _Worker:
    label: str
    process: subprocess.Popen[bytes]
    conn: Connection
    ready: bool = False
    running: dict[str, Job] = field(default_factory=dict)
    ended_because: str | None = None  # the driver ended it (it stopped answering)


class LocalEngine:
    """Runs a dispatch on `workers` local processes with `spec.concurrency` items each."""

    def __init__(self, spec: WorkerSpec, *, workers: int) -> None:
        self.spec = spec
        self.workers = workers
        self._count = 0
        self._start_failures = 0

    def run(self, dispatch: Dispatch, tick: Callable[[], None]) -> None:
        pool = [self._spawn() for _ in range(min(self.workers, dispatch.total))]
        dispatch.workers_asked = len(pool)
        finished = False
        try:
            while not dispatch.complete:
                for w in pool:
                    self._fill(w, dispatch)
                dispatch.workers_live = sum(w.ready for w in pool)
                wait([w.conn for w in pool], timeout=POLL_S)  # a message, or EOF when one died
                self._end_overdue(pool, dispatch)
                for w in list(pool):
                    alive = self._drain(w, dispatch)
                    if not alive:
                        pool.remove(w)
                        self._bury(w, dispatch)
                        if not dispatch.complete:
                            pool.append(self._spawn())
                tick()
            finished = True
        finally:
            self._stop(pool, graceful=finished)

    def _spawn(self) -> _Worker:
        label = f"local-{self._count}"
        self._count += 1
        ours, theirs = socket.socketpair()
        with ours, theirs:
            process = subprocess.Popen(
                [sys.executable, "-m", "tooldeck.batch.pool_worker", str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
            )
            conn = Connection(ours.detach())
        # Only the worker holds its end now: the driver sees EOF when it dies.
        worker = _Worker(label, process, conn)
        with contextlib.suppress(OSError):  # it died at once; the next poll buries it
            conn.send(("init", self.spec, label, list(sys.path)))
        return worker

    def _fill(self, w: _Worker, dispatch: Dispatch) -> None:
        while w.ready and len(w.running) < self.spec.concurrency:
            if any(runs_alone(job) for job in w.running.values()):
                return
            job = dispatch.take(w.label, idle=not w.running)
            if job is None:
                return
            try:
                w.conn.send(("item", job.item, job.attempt))
            except OSError:
                dispatch.give_back(job)  # it is dying; the sentinel will say so
                return
            w.running[job.key] = job

    def _drain(self, w: _Worker, dispatch: Dispatch) -> bool:
        """Every message the worker has sent so far (also those sent just before it died);
        False when its end is closed (it died, or is dying)."""
        while True:
            try:
                if not w.conn.poll():
                    return True
                message = w.conn.recv()
            except (EOFError, OSError):
                return False
            kind = message[0]
            if kind == "ready":
                w.ready = True
            elif kind == "fatal":
                raise BatchRunError(str(message[1]))
            elif kind == "result":
                result = message[1]
                if w.running.pop(id_key(result.id), None) is not None:
                    dispatch.finished(result)

    def _end_overdue(self, pool: list[_Worker], dispatch: Dispatch) -> None:
        """Items past their timeout and grace are ended as timeouts; their worker, which did not
        end them itself, is stuck: it is killed, and its other items are retried elsewhere."""
        for job in dispatch.overdue():
            w = next((w for w in pool if w.label == job.worker), None)
            dispatch.expire(job)
            if w is not None and w.ended_because is None:
                w.ended_because = f"worker process {w.label} stopped answering (item {job.item.id!r} overran)"
                w.process.kill()  # its socket closes; the next poll buries it

    def _bury(self, w: _Worker, dispatch: Dispatch) -> None:
        w.conn.close()
        try:
            code: int | None = w.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # its socket closed but it lives on: end it
            w.process.kill()
            code = w.process.wait()
        how = describe_exit(code)
        if not w.ready:
            self._start_failures += 1
            if self._start_failures >= START_FAILURES_ALLOWED:
                raise BatchRunError(f"worker processes die before they are ready ({how})")
        for job in w.running.values():
            if w.ended_because is not None:
                loss = WorkerLoss("unresponsive", w.ended_because, w.label)
            else:
                loss = WorkerLoss(
                    "worker_died", f"worker process {w.label} died ({how}) while running this item", w.label
                )
            dispatch.lost(job, loss)

    def _stop(self, pool: list[_Worker], *, graceful: bool) -> None:
        """Graceful: ask each worker to finish and exit. Otherwise (Ctrl-C, a failure) hang up on
        them: a worker whose socket closes abandons its items at once."""
        for w in pool:
            if graceful:
                with contextlib.suppress(OSError):
                    w.conn.send(("stop",))
            else:
                w.conn.close()
        for w in pool:
            try:
                w.process.wait(timeout=10 if graceful else 3)
            except subprocess.TimeoutExpired:
                w.process.kill()
                w.process.wait()
            w.conn.close()
