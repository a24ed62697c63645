"""The baseline for `python -m benchmarks serve`: the same tool in a bare `mcp` SDK server (stdio).

Run as a script: `python benchmarks/serve_bare.py`. Its `shout` tool does what the served
tooldeck tool does, so the difference between the two is what tooldeck's path adds per call.
"""

from __future__ import annotations

import asyncio

from mcp.server.mcpserver import MCPServer

server = MCPServer("bare")


@server.tool()
def shout(text: str, times: int = 1) -> str:
    """Upper-case a text."""
    return " ".join([text.upper()] * times)


if __name__ == "__main__":
    asyncio.run(server.run_stdio_async())
