"""Running one handler: async handlers awaited, sync handlers in daemon worker threads.

Sync handlers run on `DaemonPool` threads rather than the default ThreadPoolExecutor, whose
threads are joined at interpreter exit: a handler that never returns is abandoned after its
timeout and cannot keep the process alive. The call's cancel event is set when it is abandoned
(timeout or cancellation), and `current_cancel_event()` lets helpers such as
`tooldeck._utils.processes` see it and kill their process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import queue
import threading
from collections.abc import Callable
from typing import Any

from tooldeck._utils.processes import CANCEL_SOURCE as _CANCEL


class CancelToken:
    """Cooperative cancellation of a batch, settable from any thread (e.g. a signal handler)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb()

    def on_cancel(self, cb: Callable[[], None]) -> Callable[[], None]:
        """Call `cb` once when cancelled (at once if already); returns a function that unsubscribes."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(cb)
                return lambda: self._remove(cb)
        cb()
        return lambda: None

    def _remove(self, cb: Callable[[], None]) -> None:
        with self._lock:
            if cb in self._callbacks:
                self._callbacks.remove(cb)


_MAKING = threading.Lock()


class LazyEvent(threading.Event):
    """A `threading.Event` whose lock is made when it is first set or waited on.

    Every call that takes a `ToolContext` gets a cancel event, yet most finish without anyone
    setting it or waiting on it; making its Condition costs more than the rest of the context.
    `is_set` reads the flag alone, as `threading.Event` does.
    """

    def __init__(self) -> None:  # the base initialiser would make the Condition now
        self._flag = False

    def __getattr__(self, name: str) -> Any:
        if name != "_cond":
            raise AttributeError(name)
        # Made once, under a lock: a setter and a waiter in two threads must share one Condition.
        with _MAKING:
            cond = self.__dict__.get("_cond")
            if cond is None:
                cond = self.__dict__["_cond"] = threading.Condition(threading.Lock())
        return cond


class HandlerRaised(Exception):
    """A handler raised a BaseException that is not an Exception (KeyboardInterrupt, SystemExit,
    ...). Carried as an ordinary exception, so the event loop does not take it for the user's
    Ctrl-C or an exit of the program."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(f"{type(original).__name__}: {original}")
        self.original = original


class _Job:
    """One function for a worker, and the hand-back of its outcome (sync wait or event loop)."""

    __slots__ = (
        "_event",
        "cancelled",
        "ctx",
        "done",
        "error",
        "finished",
        "fn",
        "future",
        "guard",
        "loop",
        "result",
    )

    def __init__(self, fn: Callable[[], Any], ctx: contextvars.Context) -> None:
        self.fn = fn
        self.ctx = ctx
        self.done = threading.Lock()
        self.done.acquire()  # released by the worker when the job is over
        self.guard = threading.Lock()
        self.finished = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.future: asyncio.Future[Any] | None = None
        self.cancelled = False
        self._event: threading.Event | None = None  # made only if the handler asks for it

    def cancel_event(self) -> threading.Event:
        with self.guard:
            if self._event is None:
                self._event = threading.Event()
                if self.cancelled:
                    self._event.set()
            return self._event

    def request_cancel(self) -> None:
        with self.guard:
            self.cancelled = True
            event = self._event
        if event is not None:
            event.set()

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


class DaemonPool:
    """Daemon worker threads that take jobs; idle workers exit after `idle_timeout` seconds.

    A worker stuck in a job is simply not idle: new jobs get a new thread, so one hung handler
    never blocks the others, and no thread here ever delays interpreter exit.

    `run` first waits for the job synchronously for up to `quick_wait_s` (a quick handler then
    costs one thread hand-off instead of an event-loop wake-up), and only then hands the wait
    to the event loop. The quick wait is skipped while other jobs are already being awaited,
    so a batch of slow calls is not held up by it.
    """

    def __init__(
        self, *, idle_timeout: float = 30.0, quick_wait_s: float = 0.0005, name: str = "tooldeck-worker"
    ) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._count = 0
        self._awaited = 0
        self._idle_timeout = idle_timeout
        self._quick_wait_s = quick_wait_s
        self._name = name

    def submit(self, fn: Callable[[], Any], cancel: threading.Event | None = None) -> _Job:
        ctx = contextvars.copy_context()
        job = _Job(fn, ctx)
        ctx.run(_CANCEL.set, cancel if cancel is not None else job)
        with self._lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
            else:
                self._count += 1
        self._jobs.put(job)
        if spawn:
            threading.Thread(target=self._work, name=f"{self._name}-{self._count}", daemon=True).start()
        return job

    async def run(self, fn: Callable[[], Any], cancel: threading.Event | None = None) -> Any:
        """Run `fn` on a worker and return its result (or raise its exception)."""
        job = self.submit(fn, cancel)
        if self._awaited == 0 and job.done.acquire(timeout=self._quick_wait_s):
            return job.outcome()
        loop = asyncio.get_running_loop()
        with job.guard:
            if job.finished:
                return job.outcome()
            job.loop = loop
            job.future = fut = loop.create_future()
        self._awaited += 1
        try:
            return await fut
        except asyncio.CancelledError:
            job.request_cancel()
            raise
        finally:
            self._awaited -= 1

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self._idle_timeout)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:
                        self._idle -= 1
                        return
                continue  # a submitter counted on this worker: its job is on the way
            try:
                job.result = job.ctx.run(job.fn)
            except Exception as exc:  # boundary: whatever the handler raised goes to its caller
                job.error = exc
            except BaseException as exc:  # KeyboardInterrupt, SystemExit...: the handler's, not the user's
                job.error = HandlerRaised(exc)
            with job.guard:
                job.finished = True
                loop, fut = job.loop, job.future
            # Idle again before the hand-back, so the caller's next job finds this worker.
            with self._lock:
                self._idle += 1
            job.done.release()
            if loop is not None and fut is not None:
                _deliver(loop, fut, job)
            del job, loop, fut


def _deliver(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], job: _Job) -> None:
    def settle() -> None:
        if fut.done():
            return  # abandoned (timed out or cancelled) meanwhile
        if job.error is not None:
            fut.set_exception(job.error)
        else:
            fut.set_result(job.result)

    # A closed loop means the caller gave up on this call long ago.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle)


DEFAULT_POOL = DaemonPool()


async def run_sync(
    fn: Callable[[], Any], cancel: threading.Event | None = None, *, pool: DaemonPool | None = None
) -> Any:
    """Run a blocking function on a daemon worker; on cancellation the event is set and it is abandoned."""
    try:
        result = await (pool or DEFAULT_POOL).run(fn, cancel)
    except asyncio.CancelledError:
        if cancel is not None:
            cancel.set()
        raise
    if inspect.isawaitable(result):
        result = await result
    return result
