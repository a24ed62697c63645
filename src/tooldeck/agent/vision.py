"""The agent's `VisionService`: one-off image questions to the agent's own model.

A request carries the image as the provider expects it: an `image_url` part (Chat Completions),
an `input_image` part (Responses), or a base64 `image` block (Anthropic). Errors and retries are
those of the agent's model clients; a failure reaches the model as a tool error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooldeck.agent.models.base import ModelClient, ModelSettings, client_options
from tooldeck.agent.models.retry import call_with_retries
from tooldeck.errors import ModelError, ToolError
from tooldeck.tools.vision import ImagePart, VisionService

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig

DEFAULT_MAX_TOKENS = 1024


def vision_service(model: ModelClient) -> VisionService | None:
    """A service asking `model`'s endpoint, for clients that talk to one (not scripted fakes)."""
    settings = getattr(model, "settings", None)
    return service_for(settings) if isinstance(settings, ModelSettings) else None


def service_from_config(config: CoreConfig) -> VisionService:
    """A service for config `model:` (raises `ModelNotConfigured` when it names no endpoint)."""
    from tooldeck.agent.models.factory import resolve_model_settings

    return service_for(resolve_model_settings(config.model))


def service_for(settings: ModelSettings) -> VisionService:
    async def ask(image: ImagePart, question: str) -> str:
        try:
            return await call_with_retries(lambda: _ask_once(settings, image, question), settings)
        except ModelError as exc:
            raise ToolError(f"the vision model failed: {exc}", retryable=exc.retryable) from None

    return VisionService(ask, model=settings.model)


async def _ask_once(settings: ModelSettings, image: ImagePart, question: str) -> str:
    if settings.provider == "anthropic":
        return await _anthropic(settings, image, question)
    import openai

    from tooldeck.agent.models.openai_errors import translate_openai_error

    client = openai.AsyncOpenAI(base_url=settings.base_url, **client_options(settings))
    try:
        if settings.provider == "responses":
            return await _responses(client, settings, image, question)
        return await _chat(client, settings, image, question)
    except openai.OpenAIError as exc:
        raise translate_openai_error(exc, settings) from exc
    finally:
        await client.close()


async def _chat(client: Any, settings: ModelSettings, image: ImagePart, question: str) -> str:
    content = [
        {"type": "text", "text": question},
        {"type": "image_url", "image_url": {"url": image.data_url}},
    ]
    body: dict[str, Any] = {"model": settings.model, "messages": [{"role": "user", "content": content}]}
    if settings.max_tokens is not None:
        body["max_tokens"] = settings.max_tokens
    reply = await client.chat.completions.create(**body)
    text = reply.choices[0].message.content if reply.choices else None
    return _answer(text)


async def _responses(client: Any, settings: ModelSettings, image: ImagePart, question: str) -> str:
    content = [{"type": "input_text", "text": question}, {"type": "input_image", "image_url": image.data_url}]
    body: dict[str, Any] = {"model": settings.model, "input": [{"role": "user", "content": content}]}
    if settings.max_tokens is not None:
        body["max_output_tokens"] = settings.max_tokens
    reply = await client.responses.create(**body)
    return _answer(reply.output_text)


async def _anthropic(settings: ModelSettings, image: ImagePart, question: str) -> str:
    import anthropic

    from tooldeck.agent.models.anthropic import AnthropicModel, anthropic_base_url

    client = anthropic.AsyncAnthropic(
        base_url=anthropic_base_url(settings.base_url), **client_options(settings)
    )
    source = {"type": "base64", "media_type": image.media_type, "data": image.base64}
    # The SDK's TypedDicts for message parameters; plain dicts are what goes on the wire.
    messages: Any = [
        {"role": "user", "content": [{"type": "image", "source": source}, {"type": "text", "text": question}]}
    ]
    try:
        reply = await client.messages.create(
            model=settings.model,
            max_tokens=settings.max_tokens or DEFAULT_MAX_TOKENS,
            messages=messages,
        )
    except anthropic.AnthropicError as exc:
        # The chat client's translation, so both say the same about keys and endpoints.
        raise AnthropicModel(settings, client=client)._translate(exc) from exc
    finally:
        await client.close()
    return _answer("".join(getattr(b, "text", "") for b in reply.content if b.type == "text"))


def _answer(text: str | None) -> str:
    if not text or not text.strip():
        raise ToolError("the vision model returned an empty answer", retryable=True)
    return text
