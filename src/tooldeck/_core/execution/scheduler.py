"""Ordering the calls of one batch: what each call must wait for before it starts.

- A *barrier* call (an `interactive` or `sequential` tool) waits for every earlier call, and
  every later call waits for it: it runs alone.
- Calls on the same *resource key* (e.g. one normalised file path) never overlap: a writer
  waits for the earlier readers and writer of that key; a reader waits for the earlier writer.
- Everything else starts at once (subject to the batch's max concurrency).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldeck._core.run_state import RunState

ResourceMode = Literal["read", "write"]


@dataclass(slots=True)
class BatchPlan:
    """Tracks the started calls of one batch and answers 'what must this call wait for?'."""

    since_barrier: list[asyncio.Future[Any]] = field(default_factory=list)
    barrier: asyncio.Future[Any] | None = None
    writers: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    readers: dict[str, list[asyncio.Future[Any]]] = field(default_factory=dict)

    def dependencies(
        self, *, exclusive: bool, keys: Iterable[tuple[str, ResourceMode]]
    ) -> list[asyncio.Future[Any]]:
        if exclusive:
            deps = list(self.since_barrier)
            if self.barrier is not None:
                deps.append(self.barrier)
            return deps
        deps = [self.barrier] if self.barrier is not None else []
        for key, mode in keys:
            writer = self.writers.get(key)
            if writer is not None:
                deps.append(writer)
            if mode == "write":
                deps.extend(self.readers.get(key, ()))
        return deps

    def started(
        self, task: asyncio.Future[Any], *, exclusive: bool, keys: Iterable[tuple[str, ResourceMode]]
    ) -> None:
        if exclusive:
            self.barrier = task
            self.since_barrier = []
            self.writers.clear()
            self.readers.clear()
            return
        self.since_barrier.append(task)
        for key, mode in keys:
            if mode == "write":
                self.writers[key] = task
                self.readers[key] = []
            else:
                self.readers.setdefault(key, []).append(task)


class Batch:
    """One `execute` call: its run state, loop, and what to cancel."""

    __slots__ = ("_lock", "_state", "cancel_requested", "loop", "owner", "settled", "tasks")

    def __init__(self, state: RunState | None, loop: asyncio.AbstractEventLoop) -> None:
        self._state = state
        self.loop = loop
        self.cancel_requested = False
        self.owner: asyncio.Task[Any] | None = None  # the caller's task while a lone call runs inline
        self.tasks: list[asyncio.Task[Any]] = []
        # The tasks whose tool has returned or raised: what remains of them (shaping, framing,
        # checkpointing the call's changes) is not cancelled, so their results say what happened.
        self.settled: set[asyncio.Task[Any]] = set()
        self._lock: asyncio.Lock | None = None

    @property
    def state(self) -> RunState:
        """The run state the batch's calls share (a new one, made when first asked, if none was given)."""
        if self._state is None:
            self._state = RunState()
        return self._state

    def approval_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def cancel(self) -> None:
        if self.cancel_requested:
            return
        self.cancel_requested = True
        for task in self.tasks:
            if task not in self.settled:
                task.cancel()
        if self.owner is not None and self.owner not in self.settled:
            self.owner.cancel()

    def settle(self) -> None:
        """The current call's tool is done: its task is no longer cancelled with the batch."""
        task = asyncio.current_task()
        if task is not None:
            self.settled.add(task)
