"""OpenAI-compatible Chat Completions through the official `openai` SDK.

Works with any endpoint that speaks the format: OpenAI, DeepSeek, vLLM, Ollama, llama.cpp
server (`base_url` ending in `/v1`). Streaming and non-streaming; SDK retries are off, ours
(`retry.py`) are on.
"""

from __future__ import annotations

from typing import Any

import openai

from tooldeck.agent.events import EventSink
from tooldeck.agent.messages import Message, ModelReply, Usage, arguments_text, data_url, unique_ids
from tooldeck.agent.models.base import (
    ModelRequest,
    ModelSettings,
    RawCall,
    SdkModel,
    client_options,
)
from tooldeck.agent.models.openai_errors import openai_request
from tooldeck.agent.models.sdk_request import Emit
from tooldeck.agent.models.tools_render import render_tools
from tooldeck.core import ToolCall
from tooldeck.errors import ModelError


def chat_messages(system: str | None, messages: list[Message] | tuple[Message, ...]) -> list[dict[str, Any]]:
    """Neutral messages as Chat Completions `messages`."""
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
            if m.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": arguments_text(c.arguments)},
                    }
                    for c in m.tool_calls
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
        self._client = client or openai.AsyncOpenAI(base_url=settings.base_url, **client_options(settings))

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": chat_messages(request.system, tuple(request.messages)),
        }
        if request.loadout is not None and request.allow_tools and request.loadout.exposed:
            body["tools"] = render_tools(request.loadout, "openai", self.settings)
        if self.settings.max_tokens is not None:
            body["max_tokens"] = self.settings.max_tokens
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        body = self.request_body(request)

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
        calls = [
            ToolCall(id=tc.id or "", name=tc.function.name, arguments=tc.function.arguments or "")
            for tc in (msg.tool_calls or [])
            if getattr(tc, "function", None) is not None
        ]
        usage = completion.usage
        return ModelReply(
            message=Message(
                role="assistant", content=msg.content or "", tool_calls=tuple(unique_ids(calls, "call"))
            ),
            stop_reason=choice.finish_reason,
            usage=Usage(usage.prompt_tokens, usage.completion_tokens) if usage else Usage(),
            model=completion.model,
        )


class _StreamAccumulator:
    """Folds Chat Completions chunks into one reply (tool calls arrive in pieces, by index)."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.finish: str | None = None
        self.usage = Usage()
        self.model: str | None = None

    def add(self, chunk: Any) -> str:
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
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
        text = delta.content or ""
        if text:
            self.text.append(text)
        return text

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
        return ModelReply(
            message=Message(
                role="assistant", content="".join(self.text), tool_calls=tuple(unique_ids(calls, "call"))
            ),
            stop_reason=self.finish,
            usage=self.usage,
            model=self.model or model,
        )
