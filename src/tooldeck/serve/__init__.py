"""`tooldeck serve`: a deck's loadout as an MCP server (stdio or streamable HTTP).

    from tooldeck import Deck
    from tooldeck.serve import DeckServer, serve_stdio

    asyncio.run(serve_stdio(DeckServer(Deck.load("tooldeck.yaml"))))

Any MCP client sees the tools `tooldeck tools` shows, with the same gates; calls run through
tooldeck's executor (validation, approvals through the client's elicitation, timeouts, result
shaping), and a changed loadout is announced with `notifications/tools/list_changed`. Needs the
`serve` extra (the official `mcp` SDK), imported only here. The `serve:` section of the config
is `ServeConfig` (`tooldeck.serve.config`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

# Imported on first use: `tooldeck.Config` composes the serve section (`tooldeck.serve.config`),
# and reading a config should import neither the server nor the MCP SDK.
if TYPE_CHECKING:
    from tooldeck.serve.config import ServeConfig
    from tooldeck.serve.deck import ServedDeck
    from tooldeck.serve.server import ClientState, DeckServer
    from tooldeck.serve.transports import ListenError, http_app, serve_http, serve_stdio

__all__ = [
    "ClientState",
    "DeckServer",
    "ListenError",
    "ServeConfig",
    "ServedDeck",
    "http_app",
    "serve_http",
    "serve_stdio",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
