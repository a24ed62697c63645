"""OpenAI Responses API through the official `openai` SDK.

The conversation is sent in full each call (`store=False`, no server-side state), so a session
can resume against any endpoint. Tool calls are `function_call` items, results
`function_call_output` items paired by `call_id`.

A reply's output items go back as they came, ids included, so a reasoning model keeps its
`reasoning` items (with `encrypted_content`, asked for by `include` when `model.reasoning` is
on) beside the function calls they preceded. A reasoning item without encrypted content cannot
be found again without `store`, so it is left out and the reply's items go without their ids
(a function call sent with its id but without its reasoning item is refused).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

import openai

from tooldeck.agent.events import EventSink, ReasoningDelta
from tooldeck.agent.messages import (
    Message,
    ModelReply,
    ProviderData,
    Usage,
    arguments_object,
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
from tooldeck.agent.models.native import (
    Native,
    namespace_of,
    native_for,
    search_arguments,
    search_output,
    wire_tools,
    without_listing,
)
from tooldeck.agent.models.openai_errors import openai_request
from tooldeck.agent.models.reasoning import carried, responses_reasoning
from tooldeck.agent.models.sdk_request import Emit
from tooldeck.core import Loadout, ToolCall
from tooldeck.errors import ModelError


def response_input(messages: tuple[Message, ...], search: Search | None = None) -> list[dict[str, Any]]:
    """Neutral messages as Responses `input` items; with `search` (native deferral), our
    `tool_search` calls and results as `tool_search_call` / `tool_search_output` items."""
    items: list[dict[str, Any]] = []
    for m in messages:
        if search is not None and search.item(m, items):
            continue
        if m.role == "tool":
            output: Any = m.content
            if m.images:  # a function call's output may be a list of input parts, images among them
                output = [{"type": "input_text", "text": m.content or "(no text)"}] + [
                    {"type": "input_image", "image_url": data_url(i)} for i in m.images
                ]
            items.append({"type": "function_call_output", "call_id": m.tool_call_id, "output": output})
        elif m.role == "assistant" and m.provider_data is not None and _replayable(m):
            items.extend(_as_received(m))
        elif m.role == "assistant":
            if m.content:
                items.append({"role": "assistant", "content": m.content})
            items.extend(_function_call(c, search.loadout if search else None) for c in m.tool_calls)
        else:
            items.append({"role": m.role, "content": m.content})
    return items


def _is_call(item: dict[str, Any]) -> bool:
    """An output item the loop answers: a function call, or a search we run (client)."""
    kind = item.get("type")
    return kind == "function_call" or (kind == "tool_search_call" and item.get("execution") == "client")


def _replayable(m: Message) -> bool:
    """The stored output items still hold the message's calls, one item per call."""
    assert m.provider_data is not None
    output = m.provider_data.payload.get("output") or []
    return sum(1 for i in output if _is_call(i)) == len(m.tool_calls)


def _as_received(m: Message) -> list[dict[str, Any]]:
    """A reply's output items as they came (call ids as the history has them)."""
    assert m.provider_data is not None
    output = [dict(i) for i in m.provider_data.payload.get("output") or []]
    keep_ids = all(i.get("encrypted_content") for i in output if i.get("type") == "reasoning")
    calls = iter(m.tool_calls)
    items: list[dict[str, Any]] = []
    for item in output:
        if item.get("type") == "reasoning" and not keep_ids:
            continue
        if _is_call(item):
            item["call_id"] = next(calls).id
        if not keep_ids:
            item.pop("id", None)
        items.append(item)
    return items


@dataclass
class Search:
    """Our `tool_search` on the Responses wire (`execution: "client"`): its calls go as
    `tool_search_call` items, its results as `tool_search_output` items carrying the definitions
    it loaded; a call of a namespaced tool names its namespace."""

    loadout: Loadout
    native: Native
    settings: ModelSettings
    ids: set[str] = field(default_factory=set)

    def item(self, m: Message, items: list[dict[str, Any]]) -> bool:
        """Add `m` to `items` when it is (or holds) a search; False leaves it to the caller."""
        if self.native.server:
            return False
        if m.role == "assistant" and m.provider_data is not None and _replayable(m):
            # Sent as received (its reasoning items beside the `tool_search_call`).
            self.ids.update(c.id for c in m.tool_calls if c.name == self.native.loader)
            return False
        if m.role == "tool" and m.tool_call_id in self.ids:
            tools = search_output(self.loadout, m.content, self.settings)
            items.append(
                {
                    "type": "tool_search_output",
                    "call_id": m.tool_call_id,
                    "execution": "client",
                    "status": "completed",
                    "tools": tools,
                }
            )
            return True
        if m.role != "assistant" or not any(c.name == self.native.loader for c in m.tool_calls):
            return False
        if m.content:
            items.append({"role": "assistant", "content": m.content})
        for c in m.tool_calls:
            if c.name == self.native.loader:
                self.ids.add(c.id)
                items.append(
                    {
                        "type": "tool_search_call",
                        "call_id": c.id,
                        "arguments": arguments_object(c.arguments),
                        "execution": "client",
                        "status": "completed",
                    }
                )
            else:
                items.append(_function_call(c, self.loadout))
        return True


def _function_call(c: ToolCall, loadout: Loadout | None) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "call_id": c.id,
        "name": c.name,
        "arguments": arguments_text(c.arguments),
    }
    tool = loadout.get(c.name) if loadout is not None else None
    deferred = loadout.all_deferred if loadout is not None else ()
    space = namespace_of(tool) if tool is not None and tool in deferred else None
    if space is not None:
        item["namespace"] = space
    return item


class OpenAIResponsesModel(SdkModel):
    """A `ModelClient` for the Responses API."""

    def __init__(self, settings: ModelSettings, *, client: openai.AsyncOpenAI | None = None) -> None:
        self.settings = settings
        self._reasoning = responses_reasoning(settings.reasoning)
        self._client = client or openai.AsyncOpenAI(base_url=settings.base_url, **client_options(settings))

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        loadout = request.loadout
        native = native_for(loadout, "responses")
        search = None
        if native is not None and loadout is not None:
            search = Search(loadout, native, self.settings)
        body: dict[str, Any] = {
            "model": self.settings.model,
            "input": response_input(tuple(request.messages), search),
            "store": False,
            **self._reasoning,
        }
        system = request.system
        if native is not None and loadout is not None and system:
            system = without_listing(system, loadout)  # the namespaces say what can be found
        if system:
            body["instructions"] = system
        if request.session_id:
            body["prompt_cache_key"] = prompt_cache_key(request.session_id)
        if loadout is not None and request.allow_tools and loadout.exposed:
            body["tools"] = wire_tools(loadout, native, "responses", self.settings)
        if self.settings.max_tokens is not None:
            body["max_output_tokens"] = self.settings.max_tokens
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        messages = carried(request.messages, "responses", self.settings.model, events)
        body = self.request_body(replace(request, messages=messages))
        self.watch_prefix(request, body, events)

        async def attempt(call: RawCall, emit: Emit) -> ModelReply:
            if not self.settings.stream:
                return self._parse(await call.create(self._client.responses, **body))
            final: Any = None
            stream = await call.create(self._client.responses, **body, stream=True)
            async for event in stream:
                kind = getattr(event, "type", "")
                if kind == "response.output_text.delta":
                    emit(event.delta)
                elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
                    emit(ReasoningDelta(event.delta))
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
        thoughts: list[str] = []
        calls: list[ToolCall] = []
        reasoned = False
        kept = False
        found: list[str] = []
        for item in response.output or []:
            kind = getattr(item, "type", None)
            if kind == "message":
                texts.extend(
                    getattr(c, "text", "") or "" for c in item.content or [] if c.type == "output_text"
                )
            elif kind == "function_call":
                calls.append(ToolCall(id=item.call_id or "", name=item.name, arguments=item.arguments or ""))
            elif kind == "tool_search_call" and getattr(item, "execution", None) == "client":
                # Our own search, asked for natively: run as a call of `tool_search`.
                calls.append(
                    ToolCall(
                        id=item.call_id or "", name="tool_search", arguments=search_arguments(item.arguments)
                    )
                )
            elif kind == "tool_search_output":  # the hosted search ran: what it loaded is promoted
                found += [n for t in item.to_dict().get("tools") or [] for n in _tool_names(t)]
                kept = True
            elif kind == "reasoning":
                reasoned = True
                parts = [*(item.summary or []), *(getattr(item, "content", None) or [])]
                thoughts.extend(getattr(p, "text", "") or "" for p in parts)
        stop = "tool_calls" if calls else (getattr(response, "status", None) or "completed")
        output = [item.to_dict() for item in response.output or []] if reasoned or kept else []
        return ModelReply(
            message=Message(
                role="assistant",
                content="".join(texts),
                tool_calls=tuple(unique_ids(calls, "call")),
                reasoning="\n\n".join(t for t in thoughts if t),
                provider_data=ProviderData("responses", self.settings.model, {"output": output})
                if output
                else None,
            ),
            stop_reason=stop,
            usage=_usage(response.usage),
            model=getattr(response, "model", None),
            found=tuple(found),
        )


def _tool_names(tool: dict[str, Any]) -> list[str]:
    """The function names a loaded tool definition holds (a namespace's members)."""
    if tool.get("type") == "namespace":
        return [str(t.get("name")) for t in tool.get("tools") or []]
    return [str(tool.get("name"))] if tool.get("name") else []


def prompt_cache_key(session_id: str) -> str:
    """OpenAI's `prompt_cache_key` for a conversation: requests of one session land on the same
    cache (at most 64 characters)."""
    return "tooldeck-" + hashlib.sha256(session_id.encode()).hexdigest()[:32]


def _usage(usage: Any) -> Usage:
    """A Responses usage object under tooldeck's naming (`input_tokens` already counts the part
    read from the cache, `input_tokens_details.cached_tokens`, and the part written to it,
    `cache_write_tokens`)."""
    if usage is None:
        return Usage()
    output = getattr(usage, "output_tokens_details", None)
    cached = getattr(usage, "input_tokens_details", None)
    return Usage(
        usage.input_tokens or 0,
        usage.output_tokens or 0,
        getattr(output, "reasoning_tokens", 0) or 0,
        cache_read_input_tokens=getattr(cached, "cached_tokens", 0) or 0,
        cache_creation_input_tokens=getattr(cached, "cache_write_tokens", 0) or 0,
    )
