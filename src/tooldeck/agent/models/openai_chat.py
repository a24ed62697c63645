"""OpenAI-compatible Chat Completions through the official `openai` SDK.

Works with any endpoint that speaks the format: OpenAI, DeepSeek, vLLM, Ollama, llama.cpp
server (`base_url` ending in `/v1`). Streaming and non-streaming; SDK retries are off, ours
(`retry.py`) are on.

What a server adds to the format (DeepSeek's, Kimi's and Qwen's `reasoning_content`, Gemini's
`extra_content.google.thought_signature` on a tool call, any other field beyond the standard
ones) is kept as it came and sent back with the message in every later request.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import openai

from tooldeck.agent.events import EventSink, ReasoningDelta
from tooldeck.agent.messages import (
    Message,
    ModelReply,
    ProviderData,
    Usage,
    arguments_text,
    data_url,
    unique_ids,
)
from tooldeck.agent.models.base import (
    ModelRequest,
    ModelSettings,
    RawCall,
    SdkModel,
    client_options,
)
from tooldeck.agent.models.native import Native, native_for, unwrap_call, wire_tools, wrap_call
from tooldeck.agent.models.openai_errors import openai_request
from tooldeck.agent.models.openai_responses import prompt_cache_key
from tooldeck.agent.models.reasoning import carried, chat_reasoning
from tooldeck.agent.models.sdk_request import Emit
from tooldeck.core import ToolCall
from tooldeck.errors import ModelError


def chat_messages(
    system: str | None, messages: list[Message] | tuple[Message, ...], native: Native | None = None
) -> list[dict[str, Any]]:
    """Neutral messages as Chat Completions `messages`; with `native` (the cache-stable mode),
    calls of deferred tools go back as the `call_tool` calls the model made them through."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    # Chat Completions' tool messages take text only: the images of a run of tool results
    # follow it in one user message, each introduced by the call it came from.
    pending: list[dict[str, Any]] = []
    for m in messages:
        if m.role != "tool" and pending:
            out.append({"role": "user", "content": pending})
            pending = []
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
            if m.images:
                pending.append(
                    {
                        "type": "text",
                        "text": f"The images the tool call {m.tool_call_id} ({m.name}) returned:",
                    }
                )
                pending += [{"type": "image_url", "image_url": {"url": data_url(i)}} for i in m.images]
        elif m.role == "assistant":
            # null content is allowed only beside tool calls
            item: dict[str, Any] = {
                "role": "assistant",
                "content": m.content or (None if m.tool_calls else ""),
            }
            payload = m.provider_data.payload if m.provider_data is not None else {}
            item.update(payload.get("message") or {})
            extras = list(payload.get("tool_calls") or [])
            if m.tool_calls:
                item["tool_calls"] = [
                    {
                        **(extras[i] if i < len(extras) else {}),
                        "id": c.id,
                        "type": "function",
                        "function": _function(c, native),
                    }
                    for i, c in enumerate(m.tool_calls)
                ]
            out.append(item)
        else:
            out.append({"role": m.role, "content": m.content})
    if pending:
        out.append({"role": "user", "content": pending})
    return out


class OpenAIChatModel(SdkModel):
    """A `ModelClient` for Chat Completions."""

    def __init__(self, settings: ModelSettings, *, client: openai.AsyncOpenAI | None = None) -> None:
        self.settings = settings
        self._reasoning = chat_reasoning(settings.reasoning, settings.model, settings.base_url)
        self._client = client or openai.AsyncOpenAI(base_url=settings.base_url, **client_options(settings))

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        loadout = request.loadout
        native = native_for(loadout, "openai")
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": chat_messages(request.system, tuple(request.messages), native),
            **self._reasoning,
        }
        if request.session_id:  # a session's requests go to one cache (servers without it ignore it)
            body["prompt_cache_key"] = prompt_cache_key(request.session_id)
        if loadout is not None and request.allow_tools and loadout.exposed:
            body["tools"] = wire_tools(loadout, native, "openai", self.settings)
        if self.settings.max_tokens is not None:
            body["max_tokens"] = self.settings.max_tokens
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        messages = carried(request.messages, "chat", self.settings.model, events)
        body = self.request_body(replace(request, messages=messages))
        self.watch_prefix(request, body, events)
        if native_for(request.loadout, "openai") is not None:
            reply = await self._complete(body, events)
            calls = tuple(unwrap_call(c) for c in reply.message.tool_calls)
            return replace(reply, message=replace(reply.message, tool_calls=calls))
        return await self._complete(body, events)

    async def _complete(self, body: dict[str, Any], events: EventSink | None) -> ModelReply:

        async def attempt(call: RawCall, emit: Emit) -> ModelReply:
            if not self.settings.stream:
                return self._parse(await call.create(self._client.chat.completions, **body))
            stream = await call.create(
                self._client.chat.completions, **body, stream=True, stream_options={"include_usage": True}
            )
            acc = _StreamAccumulator()
            async for chunk in stream:
                emit(acc.add(chunk))
            return acc.reply(self.settings.model)

        return await openai_request(attempt, self.settings, events=events)

    def _parse(self, completion: Any) -> ModelReply:
        if not getattr(completion, "choices", None):
            raise ModelError(
                "openai: the endpoint returned a completion without choices", kind="bad_response"
            )
        choice = completion.choices[0]
        msg = choice.message
        tool_calls = [tc for tc in (msg.tool_calls or []) if getattr(tc, "function", None) is not None]
        calls = [
            ToolCall(id=tc.id or "", name=tc.function.name, arguments=tc.function.arguments or "")
            for tc in tool_calls
        ]
        extras = _extra(msg)
        return ModelReply(
            message=Message(
                role="assistant",
                content=msg.content or "",
                tool_calls=tuple(unique_ids(calls, "call")),
                reasoning=readable_reasoning(extras),
                provider_data=provider_data(self.settings.model, extras, [_extra(tc) for tc in tool_calls]),
            ),
            stop_reason=choice.finish_reason,
            usage=chat_usage(completion.usage),
            model=completion.model,
        )


def _extra(obj: Any) -> dict[str, Any]:
    """The fields an SDK object received beyond those the SDK declares, nulls left out."""
    extra = getattr(obj, "model_extra", None) or {}
    return {k: v for k, v in extra.items() if v is not None}


def readable_reasoning(extras: dict[str, Any]) -> str:
    """The reasoning text a server sent beside the answer (`reasoning_content`, or `reasoning`)."""
    for key in ("reasoning_content", "reasoning"):
        if isinstance(extras.get(key), str):
            return str(extras[key])
    return ""


def _function(c: ToolCall, native: Native | None) -> dict[str, str]:
    name, arguments = wrap_call(c, native) if native is not None else (c.name, c.arguments)
    return {"name": name, "arguments": arguments_text(arguments)}


def provider_data(model: str, message: dict[str, Any], calls: list[dict[str, Any]]) -> ProviderData | None:
    """What the server added to the message and its tool calls, to be sent back as it came."""
    if not message and not any(calls):
        return None
    return ProviderData("chat", model, {"message": message, "tool_calls": calls})


def chat_usage(usage: Any) -> Usage:
    """A Chat Completions usage object under tooldeck's naming. `prompt_tokens` already counts
    the part read from the cache (`prompt_tokens_details.cached_tokens`; DeepSeek says
    `prompt_cache_hit_tokens`) and the part written to it (`cache_write_tokens`)."""
    if usage is None:
        return Usage()
    details = getattr(usage, "completion_tokens_details", None)
    prompt = getattr(usage, "prompt_tokens_details", None)
    read = _count(prompt, "cached_tokens") or _count(usage, "prompt_cache_hit_tokens")
    return Usage(
        usage.prompt_tokens or 0,
        usage.completion_tokens or 0,
        _count(details, "reasoning_tokens"),
        cache_read_input_tokens=read,
        cache_creation_input_tokens=_count(prompt, "cache_write_tokens"),
    )


def _count(holder: Any, name: str) -> int:
    """A token count a usage object (or its details) may carry, as an attribute or, for fields
    the SDK does not model, an extra key; 0 when absent."""
    value = getattr(holder, name, None) if holder is not None else None
    if value is None and isinstance(holder, dict):
        value = holder.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class _StreamAccumulator:
    """Folds Chat Completions chunks into one reply (tool calls arrive in pieces, by index)."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.extras: dict[str, Any] = {}  # the message's fields beyond the standard ones
        self.call_extras: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage = Usage()
        self.model: str | None = None

    def add(self, chunk: Any) -> str | ReasoningDelta:
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = chat_usage(chunk.usage)
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        self.finish = choice.finish_reason or self.finish
        delta = choice.delta
        for tc in delta.tool_calls or []:
            slot = self.calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            slot["id"] = tc.id or slot["id"]
            if tc.function is not None:
                slot["name"] += tc.function.name or ""
                slot["arguments"] += tc.function.arguments or ""
            _fold(self.call_extras.setdefault(tc.index, {}), _extra(tc))
        extras = _extra(delta)
        _fold(self.extras, extras)
        text = delta.content or ""
        if text:
            self.text.append(text)
            return text
        return ReasoningDelta(readable_reasoning(extras))

    def reply(self, model: str) -> ModelReply:
        if self.finish is None:
            # A dropped connection can end the body cleanly; a reply is complete only with a reason.
            raise ModelError(
                "openai-compatible: the stream ended before the model finished (no finish_reason)",
                kind="connection",
            )
        calls = [
            ToolCall(id=c["id"], name=c["name"], arguments=c["arguments"])
            for _, c in sorted(self.calls.items())
        ]
        call_extras = [self.call_extras.get(i, {}) for i in sorted(self.calls)]
        return ModelReply(
            message=Message(
                role="assistant",
                content="".join(self.text),
                tool_calls=tuple(unique_ids(calls, "call")),
                reasoning=readable_reasoning(self.extras),
                provider_data=provider_data(model, self.extras, call_extras),
            ),
            stop_reason=self.finish,
            usage=self.usage,
            model=self.model or model,
        )


def _fold(into: dict[str, Any], piece: dict[str, Any]) -> None:
    """A streamed delta's extra fields into the message's: text continues, lists grow, anything
    else is replaced by its latest value."""
    for key, value in piece.items():
        before = into.get(key)
        if isinstance(before, str) and isinstance(value, str):
            value = before + value
        elif isinstance(before, list) and isinstance(value, list):
            value = [*before, *value]
        into[key] = value
