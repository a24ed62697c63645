"""MCP servers as tool sources: each configured server is an `McpSource` of the deck.

    mcp_servers:
      git: {command: mcp-server-git, args: [--repository, .]}
      docs: {url: "https://example.com/mcp", headers: {Authorization: "Bearer ${DOCS_TOKEN}"}}

Servers connect at the same time, each under its `connect_timeout`; their tools are named
`mcp__<server>__<tool>` in toolset `mcp-<server>`. The parts: `settings` (a server's resolved
settings), `stdio` (the child-process transport), `connection` (one MCP session), `supervisor`
(state, reconnection, circuit breaker), `pool` (thread-scoped sessions), `convert` (tools and
results), `naming`, `loop` (the background event loop), `sdk` (loading the SDK), `source` (the deck's view).

Nothing here imports the `mcp` SDK until a server is connected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._core.sources.mcp.pool import McpThread
from tooldeck._core.sources.mcp.settings import ServerSpec, server_specs
from tooldeck._core.sources.mcp.source import McpSource, ServerStatus

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tooldeck._core.config import CoreConfig
    from tooldeck._core.sources.mcp.loop import McpLoop

__all__ = [
    "McpSource",
    "McpThread",
    "ServerSpec",
    "ServerStatus",
    "close_all",
    "loop_of",
    "mcp_sources",
    "server_specs",
]


def mcp_sources(config: CoreConfig) -> list[McpSource]:
    """A source for every enabled server of the config; they all start connecting now."""
    from tooldeck._utils.home import tooldeck_home

    files = tooldeck_home(config.home, base_dir=config.base_dir) / "mcp-files"
    workspace = config.workspace
    return [
        McpSource(spec, workspace=workspace, files=files) for spec in server_specs(config) if spec.enabled
    ]


def loop_of(sources: Iterable[object]) -> McpLoop | None:
    """The loop the MCP sessions among `sources` live on; None when there is none."""
    return next((s.loop for s in sources if isinstance(s, McpSource)), None)


def close_all(sources: list[McpSource], timeout: float = 30.0) -> None:
    """Close several servers at once (each may take a moment to stop its process)."""
    if not sources:
        return
    import asyncio
    import contextlib

    loop = sources[0].loop

    async def close_them() -> None:
        await asyncio.gather(*(s.aclose() for s in sources), return_exceptions=True)

    # On a timeout, what is left is tied to this process: the children go when it does.
    with contextlib.suppress(TimeoutError):
        loop.wait(close_them(), timeout)
    for source in sources:
        source.close()  # already stopped: this only drops the listeners
