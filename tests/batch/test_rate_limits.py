"""The limiter shared by a worker's concurrent items: one 429 pauses them all; `max_rps` spaces calls."""

from __future__ import annotations

import asyncio
import time

import pytest

from tooldeck.agent.messages import user
from tooldeck.agent.models.base import ModelRequest, ModelSettings
from tooldeck.agent.models.retry import RateLimiter
from tooldeck.batch.worker import LimitedModel
from tooldeck.testing.scripted_server import ScriptedServer, Turn


def test_a_pause_holds_every_caller_and_a_longer_pause_wins() -> None:
    still = RateLimiter(clock=lambda: 100.0)
    still.pause(0.3)
    still.pause(0.1)  # shorter: the 0.3 s pause stays
    assert still.paused_until == pytest.approx(100.3)

    async def go() -> list[float]:
        limiter = RateLimiter()
        limiter.pause(0.3)
        limiter.pause(0.1)  # shorter: the 0.3 s pause stays
        started = time.monotonic()

        async def one() -> float:
            await limiter.acquire()
            return time.monotonic() - started

        return list(await asyncio.gather(*(one() for _ in range(5))))

    waits = asyncio.run(go())
    assert all(w >= 0.28 for w in waits), waits  # held for the pause (a loaded machine only adds)


def test_max_rps_spaces_the_starts() -> None:
    async def go() -> list[float]:
        limiter = RateLimiter(max_rps=20)
        starts = []
        for _ in range(10):
            await limiter.acquire()
            starts.append(time.monotonic())
        return starts

    starts = asyncio.run(go())
    # Each start is no earlier than its slot, 50 ms after the one before it; a loaded machine
    # can wake one late (its gap to the next is then shorter), never early.
    assert all(t - starts[0] >= k * 0.05 - 0.002 for k, t in enumerate(starts)), starts
    with pytest.raises(ValueError, match="max_rps"):
        RateLimiter(max_rps=0)


def test_a_429_with_retry_after_pauses_the_other_concurrent_calls() -> None:
    """Four calls go out together; the first is refused with Retry-After 0.5 s. The three others
    were already in flight and succeed, but every later call waits out the pause, including
    those of the calls that were never refused."""
    script = [Turn(status=429, error="slow down", headers={"retry-after": "0.5"})]
    # The answers that succeed come well after the 429, so the client has taken the pause
    # before any of the first calls returns and makes its second.
    with ScriptedServer(script, responder=lambda r: Turn(text="ok", delay_s=0.4)) as server:
        settings = ModelSettings(
            provider="openai", model="m", base_url=server.openai_url, retry_initial_s=0.01
        )

        async def go() -> None:
            model = LimitedModel(settings, RateLimiter())
            request = ModelRequest(system=None, messages=(user("hi"),))
            try:

                async def two_calls() -> None:
                    await model.complete(request)
                    await model.complete(request)

                await asyncio.gather(*(two_calls() for _ in range(4)))
            finally:
                await model.aclose()
            assert model.limiter.pauses == 1

        asyncio.run(go())
    first, *rest = server.requests
    assert len(rest) == 8  # 4 + 4 calls, plus the refused one retried: 9 requests in all
    refused_at = first.at
    late = [r.at - refused_at for r in rest[3:]]  # all but the three that were in flight
    assert all(d >= 0.45 for d in late), late
