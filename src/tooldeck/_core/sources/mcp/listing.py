"""A server's tool list: every page of it, kept while the server says it stays fresh, and
changes followed as the connection's protocol revision announces them.

On 2026-07-28 a list result may carry `ttlMs` and `cacheScope`: the SDK client's response cache
honours them, and `ListCache` keeps that cache across the reconnections of one server, so a
server that comes back within the time it promised is not asked to list its tools again.
Changes: a 2025-11-25 server sends `notifications/tools/list_changed` on the session (the
connection's message handler sees it); a 2026-07-28 server sends them only on a
`subscriptions/listen` stream, which `follow_changes` keeps open for the connection's life.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tooldeck._utils.logs import get_logger

if TYPE_CHECKING:
    import mcp_types

    from tooldeck._core.sources.mcp.settings import ServerSpec

log = get_logger("tooldeck.mcp")
# Pages of `tools/list` followed before a server counts as looping.
MAX_PAGES = 1000


class ListingError(Exception):
    """A listing that breaks its own contract (a cursor seen twice, no end)."""


class ListCache:
    """The list results of one server, shared by its successive connections."""

    def __init__(self) -> None:
        self._store: Any = None

    def config(self, spec: ServerSpec) -> Any:
        """The SDK's cache settings for a new connection to `spec` (one store, one partition:
        the entries of one server in one tooldeck process)."""
        from mcp.client.caching import CacheConfig, InMemoryResponseCacheStore

        if self._store is None:
            self._store = InMemoryResponseCacheStore()
        return CacheConfig(store=self._store, partition=f"mcp-{spec.name}", target_id=spec.target)


async def list_all_tools(client: Any, *, fresh: bool = False) -> list[mcp_types.Tool]:
    """Every page of `tools/list` (the first from the cache while the server's `ttlMs` lasts,
    unless `fresh`)."""
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if fresh else "use")
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
        if cursor in seen:
            raise ListingError(f"tools/list returned cursor {cursor!r} twice; stopped following it")
        seen.add(cursor)
    raise ListingError(f"tools/list went on for more than {MAX_PAGES} pages; stopped following it")


def announces_changes(client: Any) -> bool:
    """Whether the server speaks 2026-07-28 and says its tool list changes (then it is listened to)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    tools = getattr(client.server_capabilities, "tools", None)
    return client.protocol_version in MODERN_PROTOCOL_VERSIONS and bool(getattr(tools, "list_changed", False))


async def follow_changes(client: Any, server: str, on_change: Callable[[], None]) -> None:
    """Listen for the tool list's changes until the stream or the connection ends; a server
    that refuses or drops the stream is logged, and its tools stay as last listed."""
    from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost, ToolsListChanged
    from mcp.shared.exceptions import MCPError

    try:
        async with client.listen(tools_list_changed=True) as subscription:
            async for event in subscription:
                if isinstance(event, ToolsListChanged):
                    on_change()
    except (ListenNotSupportedError, SubscriptionLost, MCPError, TimeoutError) as exc:
        log.info("MCP server %r: not following its tool list's changes: %s", server, exc)
