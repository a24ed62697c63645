"""Example arguments through MCP: `tooldeck serve` lists a tool's examples in its `_meta`
(`input_examples`), and a deck connected to that server reads them back onto its tool."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client

from serve.helpers import BIN, stdio_params
from tooldeck import Deck, parse_config

TOOLS = '''
from tooldeck import tool


@tool(toolset="weather", examples=[{"city": "Lima", "days": 2}])
def forecast(city: str, days: int = 1) -> str:
    """The weather to come."""
    return city
'''


def test_served_examples_go_in_meta_and_come_back_onto_the_clients_tool(tmp_path: Path) -> None:
    (tmp_path / "wx_tools.py").write_text(TOOLS)
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        "tools: [{use: 'wx_tools:forecast'}]\n"
        "platform_toolsets: {cli: [weather]}\nplugins: {enabled: false}\nhome: home\n"
    )

    async def listed() -> dict[str, object]:
        async with Client(stdio_params(config)) as client:
            [found] = (await client.list_tools()).tools
            return dict(found.meta or {})

    assert asyncio.run(asyncio.wait_for(listed(), 60)) == {"input_examples": [{"city": "Lima", "days": 2}]}
    server = {"command": str(BIN), "args": ["serve", "--config", str(config)], "cwd": str(tmp_path)}
    client = {"mcp_servers": {"wx": server}, "home": str(tmp_path / "client"), "plugins": {"enabled": False}}
    deck = Deck(parse_config(client, base_dir=str(tmp_path)), builtins=False)
    try:
        [tool] = [t for t in deck.loadout().exposed if t.name.endswith("forecast")]
        assert tool.input_examples == ({"city": "Lima", "days": 2},)
    finally:
        deck.close()
