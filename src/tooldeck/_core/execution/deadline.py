"""A call's deadline: the timer that cancels its task, and the rest of a coroutine whose first
step already ran (an async handler that finishes without suspending needs no timer)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from typing import Any


class Expiry:
    __slots__ = ("fired", "task")

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.fired = False

    def fire(self) -> None:
        self.fired = True
        self.task.cancel()


class Resumed:
    """The rest of a coroutine whose first step has run (it suspended on `step`), driven by the
    awaiting task as `await coro` would: what the task sends or throws goes to the coroutine."""

    __slots__ = ("coro", "step")

    def __init__(self, coro: Coroutine[Any, Any, Any], step: Any) -> None:
        self.coro = coro
        self.step = step

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, step = self.coro, self.step
        while True:
            try:
                sent = yield step
            except BaseException as exc:  # the task's cancellation (or close) goes to the handler
                try:
                    step = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    step = coro.send(sent)
                except StopIteration as done:
                    return done.value


async def awaited(awaitable: Any) -> Any:
    return await awaitable


class TimedOut(Exception):
    pass


class Blocked(Exception):
    """An async handler held the event loop past its deadline (it called blocking code)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"{seconds:.1f} s")
        self.seconds = seconds
