"""An SDK MCP server over streamable HTTP that answers only requests bearing the right token.

python auth_http_server.py PORT TOKEN
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer

port, token = int(sys.argv[1]), sys.argv[2]
server = MCPServer("auth-demo")


@server.tool()
def secret_word() -> str:
    """The secret word, for callers that showed the token."""
    return "swordfish"


class RequireBearer:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain")],
                    }
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
                return
        await self.app(scope, receive, send)


uvicorn.run(RequireBearer(server.streamable_http_app()), host="127.0.0.1", port=port, log_level="warning")
