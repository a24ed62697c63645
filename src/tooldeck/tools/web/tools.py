"""`web_extract` and `web_search`, built for one config (`web:`) by the library source.

Both are `open_world`, so the executor frames what they return as untrusted content. The
annotations here are evaluated when a tool is built (no `from __future__ import annotations`):
`web_search`'s `limit` bound comes from the config.
"""

from typing import TYPE_CHECKING, Annotated, Literal

from tooldeck.core import Availability, Bounds, Tool, tool
from tooldeck.errors import ToolError
from tooldeck.tools.web import search as providers

if TYPE_CHECKING:
    from tooldeck.tools.web.config import WebConfig


def web_tools(web: "WebConfig") -> list[Tool]:
    """The web toolset for this config."""
    return [_extract_tool(web), _search_tool(web)]


def _extract_tool(web: "WebConfig") -> Tool:
    @tool(
        toolset="web",
        read_only=True,
        open_world=True,
        idempotent=True,
        timeout=web.timeout_s * 2 + 30,
        owner="tooldeck.tools.web:web_extract",
        description=(
            f"Fetch up to {web.max_urls} web pages at once and return their main content as markdown "
            "(or plain text): articles, docs, plain text, JSON and PDFs. Each URL gets its own result "
            "or error. Use it to read pages whose URL you know."
        ),
    )
    async def web_extract(urls: list[str], format: Literal["markdown", "text"] = "markdown") -> str:
        """
        Args:
            urls: The http(s) URLs to read.
            format: markdown keeps headings, links and tables; text is plain.
        """
        if not urls:
            raise ToolError("urls is empty: give at least one http(s) URL", type="invalid_arguments")
        if len(urls) > web.max_urls:
            raise ToolError(
                f"{len(urls)} URLs given; at most {web.max_urls} per call (web.max_urls)",
                type="invalid_arguments",
            )
        from tooldeck.tools.web.reading import read_urls

        return await read_urls(urls, web, format)

    return web_extract


def _search_tool(web: "WebConfig") -> Tool:
    search_cfg = web.search

    def check() -> Availability:
        return providers.availability(search_cfg)

    provider = search_cfg.provider or "not configured"

    @tool(
        toolset="web",
        read_only=True,
        open_world=True,
        check=check,
        timeout=search_cfg.timeout_s + 15,
        references=("web_extract",),
        owner="tooldeck.tools.web:web_search",
        description=(
            f"Search the web ({provider}) and return titles, URLs and snippets."
            "{{if web_extract}} Read a result in full with web_extract.{{end}}"
        ),
    )
    async def web_search(query: str, limit: Annotated[int, Bounds(1, search_cfg.max_results)] = 5) -> str:
        """
        Args:
            query: What to search for.
            limit: How many results to return.
        """
        if not query.strip():
            raise ToolError("query is empty", type="invalid_arguments")
        hits = await providers.search(search_cfg, query, limit)
        return providers.render(query, provider, hits)

    return web_search
