"""`tooldeck serve`: a deck's loadout as an MCP server (stdio or streamable HTTP).

    from tooldeck import Deck
    from tooldeck.serve import DeckServer, serve_stdio

    asyncio.run(serve_stdio(DeckServer(Deck.load("tooldeck.yaml"))))

Any MCP client sees the tools `tooldeck tools` shows, with the same gates; calls run through
tooldeck's executor (validation, approvals through the client's elicitation, timeouts, result
shaping), and a changed loadout is announced with `notifications/tools/list_changed`. Needs the
`serve` extra (the official `mcp` SDK), imported only here.
"""

from tooldeck.serve.server import ClientState, DeckServer
from tooldeck.serve.transports import ListenError, http_app, serve_http, serve_stdio

__all__ = ["ClientState", "DeckServer", "ListenError", "http_app", "serve_http", "serve_stdio"]
