"""The conversation as the loop keeps it: provider-neutral messages.

Model clients translate these to and from their wire format; the session store and
`--transcript` persist them with `to_dict` / `from_dict`. A tool call keeps its arguments
raw (the JSON text the model sent) so the execution engine can parse and judge them.

An assistant message also keeps what its provider sent that the provider wants back as it was
(`provider_data`: DeepSeek's `reasoning_content`, Anthropic's signed thinking blocks, Responses'
encrypted reasoning items, Gemini's thought signatures), and the model's readable reasoning
(`reasoning`) for people: shown, stored, never sent in place of the provider's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from tooldeck._utils.text import utf8_safe
from tooldeck.core import ImageContent, ToolCall, ToolResult, content_from_mcp

_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")

Role = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})


@dataclass(frozen=True, slots=True)
class ProviderData:
    """What one reply carried that its provider expects back verbatim, in the shape of the wire
    format (`api`) that produced it, and the model that produced it (another model or provider
    would reject it: it is sent back only to the same `api` and `model`).

    `payload` is JSON as received: for Chat Completions the assistant message's fields beyond
    the standard ones (`message`) and each tool call's (`tool_calls`, by position); for Responses
    the output items (`output`); for Anthropic the content blocks (`content`)."""

    api: str
    model: str
    payload: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"api": self.api, "model": self.model, "payload": dict(self.payload)}

    @classmethod
    def from_dict(cls, data: Any) -> ProviderData | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("payload"), Mapping):
            return None
        return cls(str(data.get("api", "")), str(data.get("model", "")), dict(data["payload"]))


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a model request (or a whole turn, summed with `+`) used, under one naming for every
    provider. `input_tokens` counts the whole prompt, cached or not (OpenAI's `prompt_tokens`;
    Anthropic's `input_tokens` plus its cache reads and writes), as OpenTelemetry's
    `gen_ai.usage.input_tokens` does; `cache_read_input_tokens` and
    `cache_creation_input_tokens` are the parts of it read from and written to the provider's
    prompt cache.
    `reasoning_tokens` are the part of `output_tokens` the model spent reasoning. A count the
    provider does not report is 0."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def to_dict(self) -> dict[str, int]:
        out = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }
        if self.reasoning_tokens:
            out["reasoning_tokens"] = self.reasoning_tokens
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Usage:
        """The usage `to_dict` wrote (a missing or non-numeric count is 0)."""
        if not isinstance(data, Mapping):
            return cls()
        counts = {f.name: data.get(f.name) for f in fields(cls)}
        return cls(**{k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)})


@dataclass(frozen=True, slots=True)
class Message:
    """One message. `tool_calls` only on assistant messages; `tool_call_id` only on tool ones."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # the tool's name, on role=tool
    is_error: bool = False  # a tool result that is an error envelope
    # Images a tool result carries to a model that reads them (role=tool only; `content` names
    # each in words too). How each provider takes them: its client's encoder.
    images: tuple[ImageContent, ...] = ()
    # The model's reasoning as people read it (thinking text, summaries); assistant only.
    reasoning: str = ""
    # What the provider wants back exactly as it sent it (see `ProviderData`); assistant only.
    provider_data: ProviderData | None = None
    # What the request that produced this message cost (assistant only; never sent back).
    usage: Usage | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown message role {self.role!r}; expected one of {sorted(ROLES)}")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a role=tool message needs the tool_call_id it answers")
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool_calls")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": arguments_text(c.arguments)}
                for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        if self.is_error:
            out["is_error"] = True
        if self.images:
            out["images"] = [image.to_mcp() for image in self.images]
        if self.reasoning:
            out["reasoning"] = self.reasoning
        if self.provider_data is not None:
            out["provider_data"] = self.provider_data.to_dict()
        if self.usage:
            out["usage"] = self.usage.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        calls = tuple(
            ToolCall(id=str(c["id"]), name=str(c["name"]), arguments=c.get("arguments"))
            for c in data.get("tool_calls") or ()
        )
        return cls(
            role=data["role"],
            content=str(data.get("content") or ""),
            tool_calls=calls,
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
            images=tuple(_images(data.get("images"))),
            reasoning=str(data.get("reasoning") or ""),
            provider_data=ProviderData.from_dict(data.get("provider_data")),
            usage=Usage.from_dict(data["usage"]) if "usage" in data else None,
        )


def user(text: str) -> Message:
    return Message(role="user", content=text)


def assistant(text: str = "", tool_calls: Sequence[ToolCall] = ()) -> Message:
    return Message(role="assistant", content=text, tool_calls=tuple(tool_calls))


# The image types every provider's tool results take (Anthropic, OpenAI).
MODEL_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
# The largest image every provider takes in a request (Anthropic's limit is 5 MB); a larger one
# would fail every later request of the conversation, so only its description goes.
MODEL_IMAGE_MAX_BYTES = 5 * 1000 * 1000


def tool_message(result: ToolResult, *, images: bool = False) -> Message:
    """The role=tool message that answers one call; with `images` (a model that reads them,
    `model.supports_vision`), the result's images of a type providers take go with it."""
    carried = (
        tuple(
            b
            for b in result.blocks
            if isinstance(b, ImageContent)
            and b.mime_type in MODEL_IMAGE_TYPES
            and len(b.data) <= MODEL_IMAGE_MAX_BYTES
        )
        if images and result.error is None
        else ()
    )
    return Message(
        role="tool",
        content=result.content,
        tool_call_id=result.call_id,
        name=result.name,
        is_error=result.error is not None,
        images=carried,
    )


def _images(data: Any) -> list[ImageContent]:
    """Stored images back (a damaged entry is dropped: the text still names it)."""
    out: list[ImageContent] = []
    for item in data if isinstance(data, list) else ():
        try:
            block = content_from_mcp(item) if isinstance(item, Mapping) else None
        except ValueError:
            continue
        if isinstance(block, ImageContent):
            out.append(block)
    return out


def data_url(image: ImageContent) -> str:
    """An image as a `data:` URL (OpenAI's image parts)."""
    import base64

    return f"data:{image.mime_type};base64,{base64.b64encode(image.data).decode('ascii')}"


def for_model(message: Message) -> Message:
    """`message` as a provider can take it: text that is not valid UTF-8 (a lone surrogate a
    model sent or a prompt carried) gets U+FFFD. The stored history keeps the original."""
    texts = [message.content, message.tool_call_id or "", message.name or ""]
    for c in message.tool_calls:
        texts += (c.id, c.name, arguments_text(c.arguments))
    if all(utf8_safe(t) is t for t in texts):
        return message
    calls = tuple(
        ToolCall(utf8_safe(c.id), utf8_safe(c.name), utf8_safe(arguments_text(c.arguments)))
        for c in message.tool_calls
    )
    return replace(
        message,
        content=utf8_safe(message.content),
        tool_calls=calls,
        tool_call_id=message.tool_call_id and utf8_safe(message.tool_call_id),
        name=message.name and utf8_safe(message.name),
    )


def arguments_text(arguments: str | Mapping[str, Any] | None) -> str:
    """A call's arguments as the JSON text providers expect in the history."""
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments), ensure_ascii=False)


def arguments_object(arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """A call's arguments as an object (Anthropic's `tool_use.input`); invalid JSON becomes {}."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not arguments:
        return {}
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    if _ESCAPED_SURROGATE.search(arguments):
        # An escaped lone surrogate ("\\ud800") decodes to text no request body can carry.
        text = json.dumps(value, ensure_ascii=False)
        if utf8_safe(text) is not text:
            return dict(json.loads(utf8_safe(text)))
    return value


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What one model call returned: an assistant message, why it stopped, what it cost."""

    message: Message
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    # Deferred tools the provider's own search found in this reply (Anthropic's search tools,
    # Responses hosted `tool_search`): the loop promotes them, so calls to them are accepted.
    found: tuple[str, ...] = ()

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.message.tool_calls


def unique_ids(calls: Sequence[ToolCall], prefix: str) -> list[ToolCall]:
    """Give every call a non-empty id no other call in the reply has: some servers omit ids,
    and a repeated id would make two calls share one result. The first call keeping an id keeps
    it; the others get a fresh `<prefix>_<n>` no call in the reply uses."""
    taken = {c.id for c in calls}
    seen: set[str] = set()
    out = []
    for i, c in enumerate(calls):
        cid = c.id
        if not cid or cid in seen:
            n = i
            while (cid := f"{prefix}_{n}") in taken:
                n += len(calls)
            taken.add(cid)
        seen.add(cid)
        out.append(c if cid == c.id else ToolCall(id=cid, name=c.name, arguments=c.arguments))
    return out
