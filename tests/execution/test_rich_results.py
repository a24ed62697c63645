"""Rich tool results in the core: content blocks (text, image, audio, embedded resources, resource
links) and structured content with an `outputSchema`, through `@tool` return values and `Tool`
handlers alike; the text the model reads names every block; caps apply per block; an MCP
server's rich results pass through unchanged; `tooldeck call --json` shows them."""

from __future__ import annotations

import base64
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

import pytest
from pydantic import BaseModel

from support.cli import tooldeck_command
from tooldeck import (
    AudioContent,
    Deck,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    Tool,
    ToolOutput,
    parse_config,
    tool,
)
from tooldeck.core import content_from_mcp
from tooldeck.errors import ToolDefinitionError

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


class Forecast(BaseModel):
    city: str
    celsius: float


class Totals(TypedDict):
    count: int
    names: list[str]


@dataclasses.dataclass
class Point:
    x: int
    y: int


@tool(toolset="rich")
def chart(title: str) -> list[Any]:
    """A chart with its caption."""
    return [TextContent(f"chart of {title}"), ImageContent(PNG, "image/png")]


@tool(toolset="rich")
def forecast(city: str) -> Forecast:
    """The forecast."""
    return Forecast(city=city, celsius=21.5)


@tool(toolset="rich")
def totals() -> Totals:
    """Counts."""
    return {"count": 2, "names": ["a", "b"]}


@tool(toolset="rich")
def point() -> Point:
    """A point."""
    return Point(3, 4)


@tool(toolset="rich")
def everything() -> ToolOutput:
    """Every kind of block."""
    return ToolOutput(
        blocks=[
            TextContent("here"),
            AudioContent(b"RIFF....WAVE", "audio/wav"),
            EmbeddedResource("file:///notes.md", "text/markdown", text="# notes"),
            EmbeddedResource("file:///blob.bin", "application/octet-stream", blob=b"\x00\x01"),
            ResourceLink("file:///big.csv", "big.csv", "text/csv", description="the data"),
        ],
        structured={"ok": True},
    )


def _lying(arguments: dict[str, Any]) -> ToolOutput:
    return ToolOutput("claims", structured={"count": "many"})


lying = Tool(
    name="lying",
    description="Structured content that breaks its own schema.",
    parameters={"type": "object", "properties": {}},
    handler=_lying,
    toolset="rich",
    output_schema={"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
)


@tool(toolset="rich", max_result_chars=200)
def long_blocks() -> list[Any]:
    """A long text block and an image."""
    return [TextContent("x" * 5000), ImageContent(PNG, "image/png")]


@tool(toolset="rich")
def huge_image() -> ImageContent:
    """An image over the per-block cap."""
    return ImageContent(b"\x00" * (9 * 1024 * 1024), "image/png")


TOOLS = [chart, forecast, totals, point, everything, lying, long_blocks, huge_image]


def deck(tmp_path: Path, **config: Any) -> Deck:
    data = {"platform_toolsets": {"cli": ["rich"]}, "home": str(tmp_path / "home"), **config}
    return Deck(parse_config(data), tools=TOOLS)


def test_blocks_come_back_beside_a_text_that_names_each(tmp_path: Path) -> None:
    result = deck(tmp_path).call_sync("chart", {"title": "sales"})
    assert result.ok, result.content
    assert result.blocks == (TextContent("chart of sales"), ImageContent(PNG, "image/png"))
    assert result.content == f"chart of sales\n[image (image/png), {len(PNG)} bytes]"


def test_every_block_kind_and_structured_content_through_tool_output(tmp_path: Path) -> None:
    result = deck(tmp_path).call_sync("everything", {})
    assert result.ok, result.content
    assert [b.type for b in result.blocks] == ["text", "audio", "resource", "resource", "resource_link"]
    assert result.structured == {"ok": True}
    assert "[audio (audio/wav), 12 bytes]" in result.content
    assert "[resource <file:///notes.md> (text/markdown)]\n# notes" in result.content
    assert "[resource link big.csv <file:///big.csv> (text/csv): the data]" in result.content
    # MCP's JSON form, and back again, loses nothing.
    assert tuple(content_from_mcp(b.to_mcp()) for b in result.blocks) == result.blocks
    assert result.blocks[1].to_mcp() == {
        "type": "audio",
        "data": base64.b64encode(b"RIFF....WAVE").decode(),
        "mimeType": "audio/wav",
    }


@pytest.mark.parametrize(
    ("name", "structured"),
    [
        ("forecast", {"city": "Oslo", "celsius": 21.5}),
        ("totals", {"count": 2, "names": ["a", "b"]}),
        ("point", {"x": 3, "y": 4}),
    ],
)
def test_an_object_return_type_gives_an_output_schema_and_structured_content(
    tmp_path: Path, name: str, structured: dict[str, Any]
) -> None:
    defined = next(t for t in TOOLS if t.name == name)
    assert defined.output_schema is not None and defined.output_schema["type"] == "object"
    assert set(defined.output_schema["properties"]) == set(structured)
    arguments = {"city": "Oslo"} if name == "forecast" else {}
    result = deck(tmp_path).call_sync(name, arguments)
    assert result.ok, result.content
    assert result.structured == structured
    assert json.loads(result.content) == structured
    assert chart.output_schema is None  # a list of blocks is no object


def test_structured_content_that_breaks_its_schema_is_a_tool_error(tmp_path: Path) -> None:
    result = deck(tmp_path).call_sync("lying", {})
    assert result.error is not None and result.error.type == "tool_error"
    assert "does not match its output_schema" in result.content and "count" in result.content


def test_an_output_schema_must_be_an_objects() -> None:
    with pytest.raises(ToolDefinitionError, match="output_schema must be a JSON Schema of type object"):
        Tool(name="bad", description="d", parameters={"type": "object"}, handler=lambda a: a,
             output_schema={"type": "string"})  # fmt: skip


def test_caps_and_the_spill_apply_per_block(tmp_path: Path) -> None:
    d = deck(tmp_path)
    with d.session() as session:
        result = session.call_sync("long_blocks", {})
        assert result.ok
        text, image = result.blocks
        assert isinstance(text, TextContent) and len(text.text) < 1000 and "result truncated" in text.text
        assert image == ImageContent(PNG, "image/png")  # other blocks are untouched
        kept = text.text.split("kept as id '")[1].split("'")[0]
        page = session.call_sync("read_result", {"id": kept})
        assert page.ok and "xxxx" in page.content
    huge = d.call_sync("huge_image", {})
    assert huge.ok
    [note] = huge.blocks
    assert isinstance(note, TextContent) and "not passed on" in note.text and "image/png" in note.text


def test_an_mcp_servers_rich_results_pass_through(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
    from mcpkit import deck_over, tiny

    with deck_over(tmp_path, {"tiny": tiny()}) as d:
        name = next(t.name for t in d.loadout().exposed if t.name.endswith("image"))
        result = d.call_sync(name, {})
    assert result.ok, result.content
    [image] = result.blocks
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert image.data.startswith(b"\x89PNG")
    assert "image (image/png)" in result.content


def test_call_json_shows_the_blocks_and_the_structured_content(tmp_path: Path) -> None:
    module = tmp_path / "rich_tools.py"
    module.write_text(
        "from tooldeck import ImageContent, TextContent, tool\n"
        "@tool(toolset='rich')\n"
        "def chart(title: str) -> list:\n"
        "    '''A chart.'''\n"
        "    return [TextContent('chart of ' + title), ImageContent(b'\\x89PNGdata', 'image/png')]\n"
    )
    (tmp_path / "tooldeck.yaml").write_text(
        "tools:\n  - use: rich_tools:chart\nplatform_toolsets: {cli: [rich]}\nhome: home\n"
    )
    done = subprocess.run(
        [
            *tooldeck_command(),
            "call",
            "chart",
            "--args",
            '{"title": "q3"}',
            "--json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["ok"] is True and record["content"].startswith("chart of q3")
    assert record["blocks"] == [
        {"type": "text", "text": "chart of q3"},
        {"type": "image", "data": base64.b64encode(b"\x89PNGdata").decode(), "mimeType": "image/png"},
    ]


def test_results_that_describe_themselves_get_no_output_schema() -> None:
    from tooldeck import ToolOutput

    @tool
    def wrapped() -> ToolOutput:
        """A result with its own blocks."""
        return ToolOutput("x")

    @tool
    def picture() -> ImageContent:
        """One image."""
        return ImageContent(b"x", "image/png")

    assert wrapped.output_schema is None and picture.output_schema is None
