"""`tooldeck serve` carries rich results to MCP clients: content blocks (image, embedded resource,
resource link) as MCP content, structured results as `structuredContent` beside their JSON text,
and the tool's `outputSchema` in tools/list; driven by the official `mcp` client over stdio in
both protocol eras."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from serve.helpers import BIN, HERE
from serve.rich_tools import PIXEL

MODES = ["legacy", "auto"]
CONFIG = """\
platform_toolsets: {cli: [rich]}
tools:
  - use: rich_tools:picture
  - use: rich_tools:totals
  - use: rich_tools:broken_totals
home: home
"""


def served(folder: Path) -> StdioServerParameters:
    shutil.copy(HERE / "rich_tools.py", folder / "rich_tools.py")
    config = folder / "tooldeck.yaml"
    config.write_text(CONFIG)
    return StdioServerParameters(command=str(BIN), args=["serve", "--config", str(config)])


@pytest.mark.parametrize("mode", MODES)
def test_blocks_structured_content_and_output_schemas_reach_the_client(tmp_path: Path, mode: str) -> None:
    async def session() -> None:
        async with Client(served(tmp_path), mode=mode) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            schema = listed["totals"].output_schema
            assert schema is not None and schema["type"] == "object"
            assert set(schema["properties"]) == {"count", "mean"}
            assert listed["picture"].output_schema is None

            pic = await client.call_tool("picture", {})
            assert pic.is_error is False
            kinds = [type(b) for b in pic.content]
            assert kinds == [
                types.TextContent,
                types.ImageContent,
                types.EmbeddedResource,
                types.ResourceLink,
            ]
            text, image, resource, link = pic.content
            assert isinstance(text, types.TextContent) and text.text == "a red pixel"
            assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
            assert base64.b64decode(image.data) == PIXEL
            assert isinstance(resource, types.EmbeddedResource)
            assert isinstance(resource.resource, types.TextResourceContents)
            assert (str(resource.resource.uri), resource.resource.text) == (
                "file:///notes/readme.md",
                "# notes",
            )
            assert isinstance(link, types.ResourceLink)
            assert (str(link.uri), link.name, link.size) == ("file:///data/big.csv", "big.csv", 1024)
            assert pic.structured_content is None

            tot = await client.call_tool("totals", {"values": [1, 2, 3]})
            assert tot.is_error is False
            assert tot.structured_content == {"count": 3, "mean": 2.0}
            [block] = tot.content  # the same data as JSON text, for clients that read text only
            assert isinstance(block, types.TextContent)
            assert json.loads(block.text) == {"count": 3, "mean": 2.0}

            bad = await client.call_tool("broken_totals", {})
            assert bad.is_error is True and bad.structured_content is None
            [err] = bad.content
            assert isinstance(err, types.TextContent) and "count" in json.loads(err.text)["error"]["message"]

    asyncio.run(session())
