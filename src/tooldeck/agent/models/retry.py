"""Retries with backoff for model calls: 429, 5xx, dropped connections and timeouts.

The SDKs' own retries are switched off (`max_retries=0`) so every retry goes through here and
is visible as a `RetryScheduled` event. A `retry-after` header from the provider wins over the
computed backoff (capped at `retry_max_s`).
"""

from __future__ import annotations

import asyncio
import random
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


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    settings: ModelSettings,
    *,
    events: EventSink | None = None,
    can_retry: Callable[[], bool] = lambda: True,
) -> T:
    """Run `call`, retrying retryable `ModelError`s up to `settings.max_retries` times.

    `can_retry` lets a streaming client refuse a retry once text has reached the user.
    """
    attempt = 0
    while True:
        try:
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
            await asyncio.sleep(delay)
