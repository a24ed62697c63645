"""Content blocks a tool result may carry besides its text, in MCP's vocabulary.

A handler returns one block, a list of them, or a `ToolOutput(blocks=..., structured=...)`.
The text the model reads (`ToolResult.content`) is the text blocks joined, with every other
block named in words (`[image (image/png), 2048 bytes]`), so a client that takes only text
loses nothing silently; the blocks themselves go on (`ToolResult.blocks`) to where they make
sense: providers whose tool results take images, `serve`'s MCP clients, `call --json`.

Binary data is kept as bytes; `to_mcp` / `from_mcp` convert to and from MCP's JSON form
(base64 `data`/`blob`, camelCase keys). A block that is not one of these is refused with a
message naming it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

# The largest binary block a result carries on (bigger ones are named and dropped), in bytes.
MAX_BLOCK_BYTES = 8 * 1024 * 1024


class _Block:
    __slots__ = ()

    def to_mcp(self) -> dict[str, Any]:
        """This block in MCP's JSON form (`to_mcp`)."""
        return to_mcp(cast("ContentBlock", self))  # every subclass is one


@dataclass(frozen=True, slots=True)
class TextContent(_Block):
    """Text in a result (MCP's `TextContent`)."""

    text: str
    type: str = field(default="text", init=False)


@dataclass(frozen=True, slots=True)
class ImageContent(_Block):
    """An image in a result: its bytes and media type (`image/png`, ...)."""

    data: bytes
    mime_type: str
    type: str = field(default="image", init=False)


@dataclass(frozen=True, slots=True)
class AudioContent(_Block):
    """Audio in a result: its bytes and media type (`audio/wav`, ...)."""

    data: bytes
    mime_type: str
    type: str = field(default="audio", init=False)


@dataclass(frozen=True, slots=True)
class EmbeddedResource(_Block):
    """A resource's contents inside the result: `text`, or `blob` bytes."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: bytes | None = None
    type: str = field(default="resource", init=False)

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"an embedded resource ({self.uri}) needs exactly one of text and blob")


@dataclass(frozen=True, slots=True)
class ResourceLink(_Block):
    """A pointer to a resource the client may read (`resources/read`), not its contents."""

    uri: str
    name: str
    mime_type: str | None = None
    description: str | None = None
    title: str | None = None
    size: int | None = None
    type: str = field(default="resource_link", init=False)


ContentBlock: TypeAlias = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink
"""One block of a result's content, in MCP's vocabulary."""
BLOCK_TYPES = (TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink)


def is_block(value: object) -> bool:
    return isinstance(value, BLOCK_TYPES)


def blocks_of(value: object) -> tuple[ContentBlock, ...] | None:
    """`value` as blocks when it is one block or a non-empty list/tuple of blocks only; else None."""
    if isinstance(value, BLOCK_TYPES):
        return (value,)
    if isinstance(value, list | tuple) and value and all(isinstance(v, BLOCK_TYPES) for v in value):
        return tuple(value)
    return None


def checked(blocks: Iterable[object]) -> tuple[ContentBlock, ...]:
    """`blocks` when each is a content block; a TypeError naming the first that is not."""
    out: list[ContentBlock] = []
    for i, block in enumerate(blocks):
        if not isinstance(block, BLOCK_TYPES):
            raise TypeError(
                f"blocks[{i}] is a {type(block).__name__}, not a content block (TextContent, ImageContent, "
                "AudioContent, EmbeddedResource, ResourceLink)"
            )
        out.append(block)
    return tuple(out)


def describe(block: ContentBlock) -> str:
    """A block in words, for readers of text only."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        return f"[{block.type} ({block.mime_type}), {len(block.data)} bytes]"
    if isinstance(block, EmbeddedResource):
        mime = f" ({block.mime_type})" if block.mime_type else ""
        if block.text is not None:
            return f"[resource <{block.uri}>{mime}]\n{block.text}"
        return f"[resource <{block.uri}>{mime}, {len(block.blob or b'')} bytes]"
    about = f": {block.description}" if block.description else ""
    mime = f" ({block.mime_type})" if block.mime_type else ""
    return f"[resource link {block.name} <{block.uri}>{mime}{about}]"


def text_of(blocks: Iterable[ContentBlock]) -> str:
    return "\n".join(describe(b) for b in blocks)


def within_cap(blocks: Iterable[ContentBlock], cap: int = MAX_BLOCK_BYTES) -> tuple[ContentBlock, ...]:
    """The blocks, each binary one over `cap` bytes replaced by a text block that says so."""
    out: list[ContentBlock] = []
    for block in blocks:
        size = _binary_size(block)
        if size is not None and size > cap:
            out.append(
                TextContent(
                    f"{describe(block)} — over the {cap} bytes a result block may carry; not passed on"
                )
            )
        else:
            out.append(block)
    return tuple(out)


def _binary_size(block: ContentBlock) -> int | None:
    if isinstance(block, ImageContent | AudioContent):
        return len(block.data)
    if isinstance(block, EmbeddedResource) and block.blob is not None:
        return len(block.blob)
    return None


def to_mcp(block: ContentBlock) -> dict[str, Any]:
    """A block in MCP's JSON form (as `tools/call` results and `call --json` carry it)."""
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        return {"type": block.type, "data": _b64(block.data), "mimeType": block.mime_type}
    if isinstance(block, EmbeddedResource):
        resource: dict[str, Any] = {"uri": block.uri}
        if block.mime_type:
            resource["mimeType"] = block.mime_type
        if block.text is not None:
            resource["text"] = block.text
        else:
            resource["blob"] = _b64(block.blob or b"")
        return {"type": "resource", "resource": resource}
    out: dict[str, Any] = {"type": "resource_link", "uri": block.uri, "name": block.name}
    for key, value in (
        ("mimeType", block.mime_type),
        ("description", block.description),
        ("title", block.title),
        ("size", block.size),
    ):
        if value is not None:
            out[key] = value
    return out


def from_mcp(data: Mapping[str, Any]) -> ContentBlock:
    """A block from MCP's JSON form; ValueError naming what is wrong."""
    kind = data.get("type")
    if kind == "text":
        return TextContent(str(data.get("text", "")))
    if kind in ("image", "audio"):
        raw = _unb64(data.get("data"), f"{kind}.data")
        media = str(data.get("mimeType") or "application/octet-stream")
        return ImageContent(raw, media) if kind == "image" else AudioContent(raw, media)
    if kind == "resource":
        resource = data.get("resource")
        if not isinstance(resource, Mapping) or not isinstance(resource.get("uri"), str):
            raise ValueError("resource block without resource.uri")
        mime = resource.get("mimeType") if isinstance(resource.get("mimeType"), str) else None
        if isinstance(resource.get("text"), str):
            return EmbeddedResource(resource["uri"], mime, text=resource["text"])
        return EmbeddedResource(resource["uri"], mime, blob=_unb64(resource.get("blob"), "resource.blob"))
    if kind == "resource_link":
        if not isinstance(data.get("uri"), str):
            raise ValueError("resource_link block without uri")
        return ResourceLink(
            data["uri"],
            str(data.get("name") or data["uri"]),
            data.get("mimeType"),
            data.get("description"),
            data.get("title"),
            data.get("size") if isinstance(data.get("size"), int) else None,
        )
    raise ValueError(f"unknown content block type {kind!r}")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(value: object, what: str) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{what} is not valid base64") from None


__all__ = [
    "MAX_BLOCK_BYTES",
    "AudioContent",
    "ContentBlock",
    "EmbeddedResource",
    "ImageContent",
    "ResourceLink",
    "TextContent",
    "blocks_of",
    "checked",
    "describe",
    "from_mcp",
    "text_of",
    "to_mcp",
    "within_cap",
]
