"""Retries with backoff for model calls: 429, 5xx, dropped connections and timeouts.

The SDKs' own retries are switched off (`max_retries=0`) so every retry goes through here and
is visible as a `RetryScheduled` event. A `retry-after` header from the provider wins over the
computed backoff (capped at `retry_max_s`).

A `RateLimiter` can be shared by every call of one process (the concurrent items of a batch
worker): a 429 then pauses all of them until the backoff has passed, not only the call that
was refused, and an optional request rate spaces their starts.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tooldeck.agent.events import EventSink, RetryScheduled
from tooldeck.agent.models.base import ModelSettings
from tooldeck.errors import ModelError

T = TypeVar("T")


def backoff_delay(attempt: int, settings: ModelSettings, retry_after_s: float | None) -> float:
    """Delay before retry number `attempt` (1-based): exponential with jitter, or the server's."""
    if retry_after_s is not None:
        return min(retry_after_s, settings.retry_max_s)
    base = min(settings.retry_max_s, settings.retry_initial_s * float(2 ** (attempt - 1)))
    jitter: float = random.uniform(0.5, 1.0)
    return base * jitter


class RateLimiter:
    """Paces the model calls that share it: a pause after a 429, and at most `max_rps` starts a second.

    Single event loop only (the calls of one asyncio program); not thread-safe.
    """

    def __init__(self, *, max_rps: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        if max_rps is not None and max_rps <= 0:
            raise ValueError(f"max_rps must be > 0, not {max_rps}")
        self.interval = 1.0 / max_rps if max_rps else 0.0
        self.clock = clock
        self.paused_until = 0.0
        self.pauses = 0
        self._next_start = 0.0

    def pause(self, delay_s: float) -> None:
        """Hold every call back for `delay_s` from now (a pause already longer is kept)."""
        self.pauses += 1
        self.paused_until = max(self.paused_until, self.clock() + delay_s)

    async def acquire(self) -> None:
        """Wait until a pause is over and this call's start slot has come."""
        while True:
            now = self.clock()
            if now < self.paused_until:
                await asyncio.sleep(self.paused_until - now)
                continue
            if not self.interval:
                return
            start = max(now, self._next_start)
            self._next_start = start + self.interval
            if start > now:
                await asyncio.sleep(start - now)
            if self.clock() >= self.paused_until:
                return
            # A 429 arrived while this call waited for its slot: the pause wins.


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    settings: ModelSettings,
    *,
    events: EventSink | None = None,
    can_retry: Callable[[], bool] = lambda: True,
    limiter: RateLimiter | None = None,
) -> T:
    """Run `call`, retrying retryable `ModelError`s up to `settings.max_retries` times.

    `can_retry` lets a streaming client refuse a retry once text has reached the user. With a
    shared `limiter`, every attempt waits for it, and a rate-limit error pauses all its users.
    """
    attempt = 0
    while True:
        try:
            if limiter is not None:
                await limiter.acquire()
            return await call()
        except ModelError as exc:
            attempt += 1
            if not exc.retryable or attempt > settings.max_retries or not can_retry():
                if exc.retryable and attempt > 1:
                    raise ModelError(
                        f"{exc} (gave up after {attempt} attempts)",
                        kind=exc.kind,
                        status=exc.status,
                        retry_after_s=exc.retry_after_s,
                    ) from exc
                raise
            delay = backoff_delay(attempt, settings, exc.retry_after_s)
            if events is not None:
                events(RetryScheduled(attempt=attempt, delay_s=delay, error=str(exc)))
            if limiter is not None and exc.kind == "rate_limit":
                limiter.pause(delay)  # the next `acquire` waits, for this call and every other
            else:
                await asyncio.sleep(delay)
