"""Requests through the `openai` SDK (Chat Completions and Responses), and its exceptions turned
into `ModelError`s that say what to check."""

from __future__ import annotations

from typing import TYPE_CHECKING

import openai

from tooldeck.agent.models.base import (
    ModelSettings,
    classify_status,
    describe_status_error,
    error_detail,
    retry_after,
)
from tooldeck.agent.models.sdk_request import Attempt, sdk_request
from tooldeck.errors import ModelError

if TYPE_CHECKING:
    from tooldeck.agent.events import EventSink
    from tooldeck.agent.messages import ModelReply


def provider_label(settings: ModelSettings) -> str:
    return "openai-compatible" if settings.provider == "openai" else "openai responses"


async def openai_request(
    attempt: Attempt, settings: ModelSettings, *, events: EventSink | None
) -> ModelReply:
    """`attempt` with retries, its openai errors translated (see `sdk_request`)."""
    return await sdk_request(
        attempt,
        settings,
        provider=provider_label(settings),
        sdk_error=openai.OpenAIError,
        translate=lambda exc: translate_openai_error(exc, settings),
        events=events,
    )


def translate_openai_error(exc: openai.OpenAIError, settings: ModelSettings) -> ModelError:
    provider = provider_label(settings)
    where = settings.base_url or "https://api.openai.com/v1"
    if isinstance(exc, openai.APITimeoutError):
        return ModelError(
            f"{provider}: request to {where} timed out after {settings.timeout_s:g}s", kind="timeout"
        )
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(
            f"{provider}: cannot reach {where} ({exc.__cause__ or exc}); is the server running and is "
            "--base-url right (OpenAI-compatible URLs end in /v1)?",
            kind="connection",
        )
    if isinstance(exc, openai.APIStatusError):
        detail = error_detail(exc.body, exc.message)
        kind = classify_status(exc.status_code, detail)
        message = describe_status_error(
            kind,
            provider=provider,
            model=settings.model,
            base_url=where,
            key_env=settings.api_key_env or "OPENAI_API_KEY",
            detail=detail,
            status=exc.status_code,
        )
        return ModelError(
            message, kind=kind, status=exc.status_code, retry_after_s=retry_after(exc.response.headers)
        )
    return ModelError(f"{provider}: {exc}", kind="bad_response")
