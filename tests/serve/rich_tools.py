"""Tools with rich results, served by `tooldeck serve` in test_serve_rich_results.py."""

from __future__ import annotations

from dataclasses import dataclass

from tooldeck import EmbeddedResource, ImageContent, ResourceLink, TextContent, tool

PIXEL = b"\x89PNG\r\n\x1a\n" + b"pixel-bytes"


@tool(toolset="rich", read_only=True)
def picture() -> list[object]:
    """A caption, an image, an embedded text resource and a link."""
    return [
        TextContent("a red pixel"),
        ImageContent(PIXEL, "image/png"),
        EmbeddedResource("file:///notes/readme.md", mime_type="text/markdown", text="# notes"),
        ResourceLink("file:///data/big.csv", name="big.csv", mime_type="text/csv", size=1024),
    ]


@dataclass
class Totals:
    count: int
    mean: float


@tool(toolset="rich", read_only=True)
def totals(values: list[float]) -> Totals:
    """Count and mean of the values."""
    return Totals(len(values), sum(values) / len(values))


@tool(toolset="rich")
def broken_totals() -> Totals:
    """Returns what its schema does not allow."""
    return {"count": "many"}  # type: ignore[return-value]
