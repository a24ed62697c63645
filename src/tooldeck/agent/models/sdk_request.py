"""One model request through an official SDK: retried, its streamed text reported, its errors
translated into `ModelError`s.

Each client supplies one attempt (`attempt(call, emit)`): it makes the request through `call`
(so the HTTP status is known even when the body is unreadable) and hands streamed text (or
`ReasoningDelta`s) to `emit`. Once text has reached the user, a failed attempt is not retried.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from tooldeck.agent.events import EventSink, ReasoningDelta, TextDelta
from tooldeck.agent.messages import ModelReply
from tooldeck.agent.models.base import ModelSettings, RawCall, unreadable_reply
from tooldeck.agent.models.retry import call_with_retries
from tooldeck.errors import ModelError

E = TypeVar("E", bound=Exception)
Emit = Callable[[str | ReasoningDelta | None], None]
Attempt = Callable[[RawCall, Emit], Awaitable[ModelReply]]


async def sdk_request(
    attempt: Attempt,
    settings: ModelSettings,
    *,
    provider: str,
    sdk_error: type[E],
    translate: Callable[[E], ModelError],
    events: EventSink | None,
) -> ModelReply:
    """Run `attempt` with retries; `sdk_error`s go through `translate`, unreadable bodies are
    reported with the HTTP status under the `provider` label."""
    streamed = False

    def emit(piece: str | ReasoningDelta | None) -> None:
        nonlocal streamed
        if events is None or not piece or (isinstance(piece, ReasoningDelta) and not piece.text):
            return
        streamed = True
        events(piece if isinstance(piece, ReasoningDelta) else TextDelta(piece))

    async def once() -> ModelReply:
        call = RawCall()
        try:
            return await attempt(call, emit)
        except sdk_error as exc:
            raise translate(exc) from exc
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # boundary: an unreadable body
            raise unreadable_reply(provider, settings, exc, status=call.status) from exc

    return await call_with_retries(once, settings, events=events, can_retry=lambda: not streamed)
