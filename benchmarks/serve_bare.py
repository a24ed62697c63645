"""The baselines for `python -m benchmarks serve`: the same tool in bare `mcp` SDK servers (stdio).

Run as a script: `python benchmarks/serve_bare.py` serves `shout` from the SDK's `MCPServer`
(its FastMCP layer: a function tool, arguments validated by the SDK); with `--lowlevel`, from
the SDK's low-level `Server` with a hand-written handler that does nothing but the work - the
floor any server on this SDK pays per call.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import mcp_types as types


def shout(text: str, times: int = 1) -> str:
    """Upper-case a text."""
    return " ".join([text.upper()] * times)


def mcpserver() -> Any:
    """The SDK's MCPServer with `shout` as a function tool."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bare")
    server.tool()(shout)
    return server


def lowlevel() -> Any:
    """The SDK's low-level Server with a hand-written handler."""
    from mcp.server.lowlevel.server import Server

    tool = types.Tool(
        name="shout",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["text"],
        },
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        text = shout(str(args["text"]), int(args.get("times", 1)))
        return types.CallToolResult(content=[types.TextContent(text=text)])

    return Server("lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


async def run_lowlevel_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    if "--lowlevel" in sys.argv:
        asyncio.run(run_lowlevel_stdio(lowlevel()))
    else:
        asyncio.run(mcpserver().run_stdio_async())
