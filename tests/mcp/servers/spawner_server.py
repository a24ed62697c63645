"""A stdio MCP server on the official SDK's `MCPServer` whose tool starts processes that leave
its process group (`setsid`), as a server that launches a daemon or a browser does.

    spawn(seconds)  starts three `sleep SECONDS` processes, each in a session of its own: one
                    detached from every stream, one holding the server's stdout, one under a
                    shell that exits at once (so it is orphaned); it returns before they end.
    crash()         the server exits with code 3, leaving them behind.
"""

from __future__ import annotations

import os
import subprocess

from mcp.server.mcpserver import MCPServer

server = MCPServer("spawner")


@server.tool()
def spawn(seconds: str) -> str:
    """Start `sleep SECONDS` processes that leave the server's process group."""
    script = (
        f"setsid sleep {seconds} </dev/null >/dev/null 2>&1 & "
        f"setsid sleep {seconds} & "
        f"setsid sh -c 'sleep {seconds}; :' </dev/null >/dev/null 2>&1 &"
    )
    subprocess.run(["sh", "-c", script], check=True, stdin=subprocess.DEVNULL)
    return "spawned"


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    os._exit(3)


if __name__ == "__main__":
    server.run()
