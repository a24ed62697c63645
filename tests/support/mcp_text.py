"""The text an MCP tool result carries, for tests reading what `tooldeck serve` answered."""

from __future__ import annotations

import mcp.types


def text_of(result: mcp.types.CallToolResult) -> str:
    """The text of the result's one content block; fails unless that block is MCP text."""
    [block] = result.content
    assert isinstance(block, mcp.types.TextContent), block
    return block.text
