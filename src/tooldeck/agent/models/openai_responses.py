"""OpenAI Responses API through the official `openai` SDK.

The conversation is sent in full each call (`store=False`, no server-side state), so a session
can resume against any endpoint. Tool calls are `function_call` items, results
`function_call_output` items paired by `call_id`.
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


def response_input(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Neutral messages as Responses `input` items."""
    items: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            output: Any = m.content
            if m.images:  # a function call's output may be a list of input parts, images among them
                output = [{"type": "input_text", "text": m.content or "(no text)"}] + [
                    {"type": "input_image", "image_url": data_url(i)} for i in m.images
                ]
            items.append({"type": "function_call_output", "call_id": m.tool_call_id, "output": output})
        elif m.role == "assistant":
            if m.content:
                items.append({"role": "assistant", "content": m.content})
            items.extend(
                {
                    "type": "function_call",
                    "call_id": c.id,
                    "name": c.name,
                    "arguments": arguments_text(c.arguments),
                }
                for c in m.tool_calls
            )
        else:
            items.append({"role": m.role, "content": m.content})
    return items


class OpenAIResponsesModel(SdkModel):
    """A `ModelClient` for the Responses API."""

    def __init__(self, settings: ModelSettings, *, client: openai.AsyncOpenAI | None = None) -> None:
        self.settings = settings
        self._client = client or openai.AsyncOpenAI(base_url=settings.base_url, **client_options(settings))

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "input": response_input(tuple(request.messages)),
            "store": False,
        }
        if request.system:
            body["instructions"] = request.system
        if request.loadout is not None and request.allow_tools and request.loadout.exposed:
            body["tools"] = render_tools(request.loadout, "responses", self.settings)
        if self.settings.max_tokens is not None:
            body["max_output_tokens"] = self.settings.max_tokens
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        body = self.request_body(request)

        async def attempt(call: RawCall, emit: Emit) -> ModelReply:
            if not self.settings.stream:
                return self._parse(await call.create(self._client.responses, **body))
            final: Any = None
            stream = await call.create(self._client.responses, **body, stream=True)
            async for event in stream:
                kind = getattr(event, "type", "")
                if kind == "response.output_text.delta":
                    emit(event.delta)
                elif kind in ("response.completed", "response.incomplete"):
                    final = event.response
                elif kind in ("response.failed", "error"):
                    detail = getattr(getattr(event, "response", None), "error", None) or event
                    raise ModelError(f"openai responses: the response failed: {detail}", kind="server")
            if final is None:
                raise ModelError(
                    "openai responses: the stream ended before the model finished (no response.completed)",
                    kind="connection",
                )
            return self._parse(final)

        return await openai_request(attempt, self.settings, events=events)

    def _parse(self, response: Any) -> ModelReply:
        texts: list[str] = []
        calls: list[ToolCall] = []
        for item in response.output or []:
            kind = getattr(item, "type", None)
            if kind == "message":
                texts.extend(
                    getattr(c, "text", "") or "" for c in item.content or [] if c.type == "output_text"
                )
            elif kind == "function_call":
                calls.append(ToolCall(id=item.call_id or "", name=item.name, arguments=item.arguments or ""))
        usage = response.usage
        stop = "tool_calls" if calls else (getattr(response, "status", None) or "completed")
        return ModelReply(
            message=Message(
                role="assistant", content="".join(texts), tool_calls=tuple(unique_ids(calls, "call"))
            ),
            stop_reason=stop,
            usage=Usage(usage.input_tokens, usage.output_tokens) if usage else Usage(),
            model=getattr(response, "model", None),
        )
