"""`vision_analyze`: ask the vision model about an image (a workspace file or a URL).

The image is sent to the model as an image part of a one-off request. The model comes from a
`VisionService`: the agent offers one built from its own model client
(`context.get(VisionService)`); outside an agent (`tooldeck call vision_analyze`) one is built
from the config's `model:` section. The tool needs vision (`needs_vision`), so it is exposed only
when `model.supports_vision` is true.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tooldeck.core import Tool, ToolContext, tool
from tooldeck.errors import ErrorType, ToolError
from tooldeck.tools.web.config import WebConfig

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig

MAX_IMAGE_BYTES = 20_000_000
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image as a model request carries it."""

    data: bytes
    media_type: str

    @property
    def base64(self) -> str:
        import base64

        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64}"


class VisionService:
    """Asks a vision-capable model one question about one image."""

    def __init__(self, ask: Callable[[ImagePart, str], Awaitable[str]], *, model: str) -> None:
        self._ask = ask
        self.model = model

    async def ask(self, image: ImagePart, question: str) -> str:
        return await self._ask(image, question)


def image_type(data: bytes) -> str | None:
    """The media type of a PNG, JPEG, GIF or WebP image, from its first bytes."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


async def vision_for(context: ToolContext | None, config: CoreConfig) -> VisionService:
    """The vision service offered to this call: the agent's own model, or (through a deck, outside
    an agent) one built from config `model:`."""
    offered = context.get(VisionService) if context is not None else None
    if offered is None:
        raise ToolError("no model to ask: vision_analyze runs through a deck or an agent", type="unavailable")
    return offered


def vision_tools(config: CoreConfig) -> list[Tool]:
    return [_analyze_tool(config)]


def _analyze_tool(config: CoreConfig) -> Tool:
    @tool(
        toolset="vision",
        needs_vision=True,
        read_only=True,
        open_world=True,
        owner="tooldeck.tools.vision:vision_analyze",
        description=(
            "Look at an image and answer a question about it: what it shows, text in it, details. "
            "The image is a file in the workspace (PNG, JPEG, GIF or WebP) or an http(s) URL."
        ),
    )
    async def vision_analyze(image: str, question: str, context: ToolContext | None = None) -> str:
        """
        Args:
            image: A workspace path (e.g. screenshots/page.png) or an http(s) URL of the image.
            question: What to find out, e.g. "What does the chart show?".
        """
        if not question.strip():
            raise ToolError(
                "question is empty: say what to find out about the image", type="invalid_arguments"
            )
        part = await load_image(image, config, context)
        service = await vision_for(context, config)
        return await service.ask(part, question)

    return vision_analyze


async def load_image(source: str, config: CoreConfig, context: ToolContext | None) -> ImagePart:
    """An image from a URL (through the address guard) or a workspace file (confined to it)."""
    if source.startswith(("http://", "https://")):
        data = await _download(source, config)
        where = source
    else:
        from tooldeck.tools.fileio import read_bytes, workspace_of

        data = read_bytes(workspace_of(context), source, MAX_IMAGE_BYTES)
        where = source
    kind = image_type(data)
    if kind is None:
        raise ToolError(f"{where} is not a PNG, JPEG, GIF or WebP image")
    return ImagePart(data, kind)


async def _download(url: str, config: CoreConfig) -> bytes:
    from dataclasses import replace

    from tooldeck.tools.web.fetch import FetchError, fetch, new_client
    from tooldeck.tools.web.reading import limits_of, policy_of

    web = config.section(WebConfig)
    limits = replace(limits_of(web), max_bytes=min(web.max_bytes, MAX_IMAGE_BYTES))
    async with new_client(limits) as client:
        try:
            fetched = await fetch(client, url, policy_of(web), limits, accept="image/*")
        except FetchError as exc:
            kind: ErrorType = (
                "denied" if exc.kind == "denied" else "timeout" if exc.kind == "timeout" else "tool_error"
            )
            raise ToolError(f"{url}: {exc}", type=kind, retryable=exc.retryable) from None
    return fetched.body
