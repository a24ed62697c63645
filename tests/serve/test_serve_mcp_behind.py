"""`tooldeck serve` in front of an MCP server: it serves on the loop the MCP sessions live on."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import yaml
from mcp import Client

from serve.helpers import stdio_params
from support.mcp_text import text_of

TINY = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "tiny_server.py"


def test_a_served_mcp_tool_is_called_through_and_the_server_stops_with_it(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "mcp_servers": {"srv": {"command": sys.executable, "args": [str(TINY)]}},
                "plugins": {"enabled": False},
                "home": str(tmp_path / "home"),
            }
        )
    )

    async def session() -> None:
        async with Client(stdio_params(config)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "mcp__srv__echo" in names
            for word in ("one", "two"):  # twice: the second call reuses the same MCP session
                result = await client.call_tool("mcp__srv__echo", {"text": word})
                assert result.is_error is False, result
                assert word in text_of(result)

    asyncio.run(asyncio.wait_for(session(), 60))
