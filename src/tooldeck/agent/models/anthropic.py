"""Anthropic Messages through the official `anthropic` SDK.

`base_url` is the host root, as the SDK takes it; a trailing `/v1` is tolerated and removed.
Tool results travel as `tool_result` blocks inside a user message; consecutive messages of one
role are merged because the API wants user and assistant turns to alternate.

With thinking on, a reply's content blocks go back as they came, in their order: `thinking`
blocks with their signatures and `redacted_thinking` blocks before (and, interleaved, between)
the tool calls; the API refuses a tool-using assistant turn that does not start with them.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import anthropic

from tooldeck.agent.events import EventSink, ReasoningDelta
from tooldeck.agent.messages import Message, ModelReply, ProviderData, Usage, arguments_object, unique_ids
from tooldeck.agent.models.base import (
    ModelRequest,
    ModelSettings,
    RawCall,
    SdkModel,
    classify_status,
    client_options,
    describe_status_error,
    error_detail,
    retry_after,
)
from tooldeck.agent.models.native import (
    ANTHROPIC_TOOL_SEARCH_BETA,
    Native,
    native_for,
    server_found,
    tool_references,
    wire_tools,
)
from tooldeck.agent.models.reasoning import INTERLEAVED_THINKING, anthropic_thinking, carried
from tooldeck.agent.models.sdk_request import Emit, sdk_request
from tooldeck.core import ToolCall
from tooldeck.errors import ModelError

DEFAULT_MAX_TOKENS = 4096
# The beta under which the API takes a tool's `input_examples`.
TOOL_EXAMPLES = "advanced-tool-use-2025-11-20"


def anthropic_base_url(url: str | None) -> str | None:
    """The host root the SDK wants: `http://host:port/v1` and `.../v1/` become `http://host:port`."""
    if url is None:
        return None
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def anthropic_messages(
    messages: tuple[Message, ...], results: Callable[[Message], Any] | None = None
) -> list[dict[str, Any]]:
    """Neutral messages as Anthropic `messages` (alternating roles, tool results as blocks).
    `results` may give a tool result's content in another form (a `tool_search` result as
    `tool_reference` blocks); None keeps it as it is."""
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for m in messages:
        blocks: list[dict[str, Any]]
        if m.role == "tool":
            role = "user"
            content: Any = (results(m) if results is not None else None) or m.content
            if m.images:  # a tool result's content may hold image blocks beside its text
                content = [{"type": "text", "text": m.content or "(no text)"}] + [
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": i.mime_type,
                            "data": base64.b64encode(i.data).decode(),
                        },
                    }
                    for i in m.images
                ]
            blocks = [{"type": "tool_result", "tool_use_id": m.tool_call_id, "content": content}]
            if m.is_error:
                blocks[0]["is_error"] = True
        elif m.role == "assistant":
            role = "assistant"
            received = _as_received(m)
            if received is not None:
                blocks = received
            else:
                blocks = [{"type": "text", "text": m.content}] if m.content else []
                blocks += [
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": arguments_object(c.arguments)}
                    for c in m.tool_calls
                ]
        else:
            role = "user"
            blocks = [{"type": "text", "text": m.content or "(empty)"}]
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return [{"role": role, "content": blocks} for role, blocks in turns]


def _as_received(m: Message) -> list[dict[str, Any]] | None:
    """The reply's content blocks as they came (tool call ids as the history has them), or None
    when there are none or they no longer hold the message's calls."""
    if m.provider_data is None:
        return None
    blocks = [dict(b) for b in m.provider_data.payload.get("content") or []]
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    if len(uses) != len(m.tool_calls):
        return None
    for block, c in zip(uses, m.tool_calls, strict=True):
        block["id"] = c.id
        if not isinstance(block.get("input"), dict):  # streamed input that was not JSON
            block["input"] = arguments_object(c.arguments)
    return blocks


def _search_results(messages: tuple[Message, ...], native: Native | None) -> Callable[[Message], Any] | None:
    """With native deferral, our `tool_search` results go as `tool_reference` blocks."""
    if native is None or native.server:
        return None
    ids = {c.id for m in messages if m.role == "assistant" for c in m.tool_calls if c.name == native.loader}
    deferred = native.deferred_names

    def results(m: Message) -> Any:
        return tool_references(m.content, deferred) if m.tool_call_id in ids else None

    return results


# Blocks a cache breakpoint may not be put on.
_NO_BREAKPOINT = ("thinking", "redacted_thinking")


def cache_breakpoints(body: dict[str, Any]) -> None:
    """Anthropic `cache_control` breakpoints: one at the end of the tools + system prefix (the
    system prompt's block, or the last tool that is not deferred), one on the newest message's
    last block, so the next request reuses everything up to it."""
    mark = {"type": "ephemeral"}
    system = body.get("system")
    if system:
        system[-1]["cache_control"] = mark
    else:
        loaded = [t for t in body.get("tools") or [] if not t.get("defer_loading")]
        if loaded:
            index = body["tools"].index(loaded[-1])
            body["tools"][index] = {**loaded[-1], "cache_control": mark}
    messages = body.get("messages") or []
    if messages and messages[-1]["content"]:
        last = messages[-1]["content"][-1]
        if last.get("type") not in _NO_BREAKPOINT:
            messages[-1]["content"][-1] = {**last, "cache_control": mark}


def _has_tool_blocks(messages: tuple[Message, ...]) -> bool:
    return any(m.role == "tool" or m.tool_calls for m in messages)


class AnthropicModel(SdkModel):
    """A `ModelClient` for Anthropic Messages."""

    def __init__(self, settings: ModelSettings, *, client: anthropic.AsyncAnthropic | None = None) -> None:
        self.settings = settings
        self._thinking = anthropic_thinking(
            settings.reasoning, max_tokens=settings.max_tokens, temperature=settings.temperature
        )
        self._client = client or anthropic.AsyncAnthropic(
            base_url=anthropic_base_url(settings.base_url), **client_options(settings)
        )

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        messages = tuple(request.messages)
        loadout = request.loadout
        native = native_for(loadout, "anthropic")
        body: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": anthropic_messages(messages, _search_results(messages, native)),
        }
        betas: list[str] = []
        thinking = self._thinking.get("thinking")
        if thinking is not None:
            body["thinking"] = thinking
        if thinking is not None and thinking["type"] == "enabled":
            # Room for the answer beyond the thinking budget; thinking between tool calls.
            body["max_tokens"] = self.settings.max_tokens or thinking["budget_tokens"] + DEFAULT_MAX_TOKENS
            betas.append(INTERLEAVED_THINKING)
        if request.system:
            body["system"] = [{"type": "text", "text": request.system}]
        if loadout is not None and loadout.exposed:
            tools = wire_tools(loadout, native, "anthropic", self.settings)
            if request.allow_tools:
                body["tools"] = tools
            elif _has_tool_blocks(messages):
                # The API rejects tool blocks in the history without tool definitions.
                body["tools"] = tools
                body["tool_choice"] = {"type": "none"}
            if native is not None and "tools" in body:
                betas.append(ANTHROPIC_TOOL_SEARCH_BETA)
        if any("input_examples" in tool for tool in body.get("tools", ())):
            betas.append(TOOL_EXAMPLES)
        if betas:
            given = {k.lower(): v for k, v in self.settings.extra_headers.items()}.get("anthropic-beta")
            # One beta may serve two features (tool search and tool examples): named once.
            named = list(dict.fromkeys([given, *betas] if given else betas))
            body["extra_headers"] = {"anthropic-beta": ",".join(named)}
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        cache_breakpoints(body)
        return body

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        messages = carried(request.messages, "anthropic", self.settings.model, events)
        body = self.request_body(replace(request, messages=messages))
        self.watch_prefix(request, body, events)

        async def attempt(call: RawCall, emit: Emit) -> ModelReply:
            if not self.settings.stream:
                return self._parse(await call.create(self._client.messages, **body))
            acc = _StreamAccumulator()
            stream = await call.create(self._client.messages, **body, stream=True)
            async for event in stream:
                emit(acc.add(event))
            return acc.reply(self.settings.model)

        return await sdk_request(
            attempt,
            self.settings,
            provider="anthropic",
            sdk_error=anthropic.AnthropicError,
            translate=self._translate,
            events=events,
        )

    def _parse(self, message: Any) -> ModelReply:
        blocks = [block.to_dict() for block in message.content or []]
        usage = message.usage
        return ModelReply(
            message=assistant_message(blocks, self.settings.model),
            stop_reason=message.stop_reason,
            usage=anthropic_usage(_counts(usage)) if usage else Usage(),
            model=message.model,
            found=server_found(blocks),
        )

    def _translate(self, exc: anthropic.AnthropicError) -> ModelError:
        where = anthropic_base_url(self.settings.base_url) or "https://api.anthropic.com"
        if isinstance(exc, anthropic.APITimeoutError):
            return ModelError(
                f"anthropic: request to {where} timed out after {self.settings.timeout_s:g}s", kind="timeout"
            )
        if isinstance(exc, anthropic.APIConnectionError):
            return ModelError(
                f"anthropic: cannot reach {where} ({exc.__cause__ or exc}); is the server running and is "
                "--base-url right (Anthropic takes the host root, e.g. https://api.anthropic.com)?",
                kind="connection",
            )
        if isinstance(exc, anthropic.APIStatusError):
            detail = error_detail(exc.body, exc.message)
            status = exc.status_code
            kind = "server" if status == 529 else classify_status(status, detail)
            message = describe_status_error(
                kind,
                provider="anthropic",
                model=self.settings.model,
                base_url=where,
                key_env=self.settings.api_key_env or "ANTHROPIC_API_KEY",
                detail=detail,
                status=status,
            )
            return ModelError(
                message, kind=kind, status=status, retry_after_s=retry_after(exc.response.headers)
            )
        return ModelError(f"anthropic: {exc}", kind="bad_response")


def assistant_message(blocks: list[dict[str, Any]], model: str) -> Message:
    """A reply's content blocks as a message: text and tool calls for the loop, the thinking for
    people, and, when the reply holds anything beyond text and tool calls (thinking), the blocks
    as they came, to be sent back."""
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    thoughts = [str(b.get("thinking", "")) for b in blocks if b.get("type") == "thinking"]
    calls = [
        ToolCall(id=str(b.get("id", "")), name=str(b.get("name", "")), arguments=_arguments(b.get("input")))
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    kept = any(b.get("type") not in ("text", "tool_use") for b in blocks)
    return Message(
        role="assistant",
        content="".join(texts),
        tool_calls=tuple(unique_ids(calls, "toolu")),
        reasoning="\n\n".join(t for t in thoughts if t),
        provider_data=ProviderData("anthropic", model, {"content": blocks}) if kept else None,
    )


class _StreamAccumulator:
    """Folds raw Messages stream events into one reply (tool input arrives as JSON fragments)."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.stop: str | None = None
        # The counts as reported so far: `message_start` gives the input side, `message_delta`
        # the output and (cumulative, when it says them) the input side again.
        self.counts: dict[str, int] = {}
        self.model: str | None = None

    def add(self, event: Any) -> str | ReasoningDelta:
        kind = event.type
        if kind == "message_start":
            self.model = event.message.model
            self.counts.update(_counts(event.message.usage))
        elif kind == "content_block_start":
            block = event.content_block.to_dict()
            if block.get("type") in ("tool_use", "server_tool_use"):
                block["json"] = ""
            self.blocks[event.index] = block
        elif kind == "content_block_delta":
            return self._delta(event)
        elif kind == "message_delta":
            self.stop = event.delta.stop_reason or self.stop
            self.counts.update(_counts(event.usage))
        return ""

    def _delta(self, event: Any) -> str | ReasoningDelta:
        delta = event.delta
        slot = self.blocks.get(event.index)
        if slot is None:
            return ""
        if delta.type == "text_delta":
            slot["text"] = slot.get("text", "") + delta.text
            return str(delta.text)
        if delta.type == "input_json_delta":
            slot["json"] += delta.partial_json
        elif delta.type == "thinking_delta":
            slot["thinking"] = slot.get("thinking", "") + delta.thinking
            return ReasoningDelta(delta.thinking)
        elif delta.type == "signature_delta":
            slot["signature"] = slot.get("signature", "") + delta.signature
        return ""

    def reply(self, model: str) -> ModelReply:
        if self.stop is None:
            raise ModelError(
                "anthropic: the stream ended before the model finished (no stop_reason)", kind="connection"
            )
        blocks: list[dict[str, Any]] = []
        for _, block in sorted(self.blocks.items()):
            if block.get("type") in ("tool_use", "server_tool_use"):
                raw = block.pop("json") or "{}"
                block["input"] = _json_object(raw)
            blocks.append(block)
        return ModelReply(
            message=assistant_message(blocks, model),
            stop_reason=self.stop,
            usage=anthropic_usage(self.counts),
            model=self.model or model,
            found=server_found(blocks),
        )


_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def _counts(usage: Any) -> dict[str, int]:
    """The token counts an Anthropic usage object reports (a count it leaves out is absent)."""
    found = {name: getattr(usage, name, None) for name in _USAGE_FIELDS}
    return {name: value for name, value in found.items() if isinstance(value, int)}


def anthropic_usage(counts: Mapping[str, int]) -> Usage:
    """Anthropic's counts under tooldeck's naming: its `input_tokens` leaves out the tokens read
    from and written to the cache, tooldeck's counts the whole prompt."""
    read = counts.get("cache_read_input_tokens", 0)
    written = counts.get("cache_creation_input_tokens", 0)
    return Usage(
        input_tokens=counts.get("input_tokens", 0) + read + written,
        output_tokens=counts.get("output_tokens", 0),
        cache_read_input_tokens=read,
        cache_creation_input_tokens=written,
    )


def _json_object(text: str) -> Any:
    """Streamed tool input as the object it spells (kept as text when it is not JSON, so the
    executor reports the bad arguments)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _arguments(value: Any) -> str:
    """A tool_use block's input as the call's arguments: an object as JSON text, text as it came."""
    return value if isinstance(value, str) else json.dumps(value if value is not None else {})
