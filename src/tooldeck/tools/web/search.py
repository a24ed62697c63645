"""Search providers for `web_search`: SearXNG, Brave, Tavily and Exa, each a request and a parser.

A provider is chosen in config (`web.search.provider`). SearXNG needs only its address; the
others need an API key, given as `web.search.api_key` (usually `${VAR}`) or read from the env
var `web.search.api_key_env` (default: the provider's usual name). The endpoints are the
operator's choice, so they are not run through the address guard (a SearXNG on localhost is
common); only the results' contents come from outside.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooldeck.core import Availability
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    from tooldeck.tools.web.config import WebSearchConfig

DEFAULT_URLS: Mapping[str, str] = {
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
    "exa": "https://api.exa.ai/search",
}
DEFAULT_KEY_ENV: Mapping[str, str] = {
    "brave": "BRAVE_API_KEY",
    "tavily": "TAVILY_API_KEY",
    "exa": "EXA_API_KEY",
}
_TAGS = re.compile(r"<[^>]+>")


@dataclass(frozen=True, slots=True)
class Hit:
    title: str
    url: str
    snippet: str


def key_env(search: WebSearchConfig) -> str | None:
    if search.provider is None or search.provider == "searxng":
        return None
    return search.api_key_env or DEFAULT_KEY_ENV[search.provider]


def api_key(search: WebSearchConfig) -> str | None:
    """The provider's key: from the config, else from its env var; None when neither has one."""
    if search.api_key:
        return search.api_key
    env = key_env(search)
    return (os.environ.get(env) or None) if env else None


def availability(search: WebSearchConfig) -> Availability:
    """Whether `web_search` can work with this config, and why not."""
    if search.provider is None:
        return Availability.no(
            "no search provider configured: set web.search.provider (searxng, brave, tavily or exa)"
        )
    if search.provider == "searxng" or api_key(search):
        return Availability.yes()
    return Availability.no(
        f"web.search.provider is {search.provider} but its API key is missing: "
        f"env {key_env(search)} not set (or set web.search.api_key)"
    )


async def search(config: WebSearchConfig, query: str, limit: int) -> list[Hit]:
    """Ask the configured provider; provider failures are `ToolError`s naming the provider."""
    import httpx

    provider = config.provider
    if provider is None:
        raise ToolError("no search provider is configured (web.search.provider)", type="unavailable")
    key = api_key(config)
    if provider != "searxng" and not key:
        raise ToolError(availability(config).reason or "no API key", type="unavailable")
    url = config.url or DEFAULT_URLS.get(provider, "")
    request = _REQUESTS[provider]
    async with httpx.AsyncClient(timeout=config.timeout_s, trust_env=False) as client:
        try:
            response = await request(client, url, key or "", query, limit)
        except httpx.TimeoutException:
            raise ToolError(f"{provider}: no answer within {config.timeout_s:g} s", retryable=True) from None
        except httpx.HTTPError as exc:
            raise ToolError(f"{provider}: request failed: {exc}", retryable=True) from None
    if response.status_code >= 400:
        raise ToolError(
            _status_message(provider, response), retryable=response.status_code in (429, 500, 502, 503)
        )
    try:
        data = response.json()
    except ValueError:
        raise ToolError(
            f"{provider}: the answer is not JSON ({response.headers.get('content-type')})"
        ) from None
    return _PARSERS[provider](data)[:limit]


def _status_message(provider: str, response: Any) -> str:
    detail = response.text[:300].strip()
    hint = ""
    if response.status_code in (401, 403) and provider != "searxng":
        hint = " (check the API key)"
    elif response.status_code == 403:
        hint = " (is the json format enabled in the instance's settings.yml, search.formats?)"
    return f"{provider}: HTTP {response.status_code}{hint}: {detail}"


async def _searxng(client: Any, url: str, key: str, query: str, limit: int) -> Any:
    base = url.rstrip("/")
    endpoint = base if base.endswith("/search") else base + "/search"
    return await client.get(endpoint, params={"q": query, "format": "json"})


async def _brave(client: Any, url: str, key: str, query: str, limit: int) -> Any:
    headers = {"X-Subscription-Token": key, "Accept": "application/json"}
    return await client.get(url, params={"q": query, "count": min(limit, 20)}, headers=headers)


async def _tavily(client: Any, url: str, key: str, query: str, limit: int) -> Any:
    body = {"query": query, "max_results": limit, "search_depth": "basic"}
    return await client.post(url, json=body, headers={"Authorization": f"Bearer {key}"})


async def _exa(client: Any, url: str, key: str, query: str, limit: int) -> Any:
    body = {"query": query, "numResults": limit, "contents": {"highlights": True}}
    return await client.post(url, json=body, headers={"x-api-key": key})


def _clean(text: Any) -> str:
    import html

    return " ".join(html.unescape(_TAGS.sub("", str(text or ""))).split())


def _hits(items: Any, snippet_of: Any) -> list[Hit]:
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping) and item.get("url"):
            out.append(
                Hit(_clean(item.get("title")) or str(item["url"]), str(item["url"]), _clean(snippet_of(item)))
            )
    return out


def _parse_searxng(data: Any) -> list[Hit]:
    return _hits(data.get("results") if isinstance(data, Mapping) else None, lambda i: i.get("content"))


def _parse_brave(data: Any) -> list[Hit]:
    web = data.get("web") if isinstance(data, Mapping) else None
    results = web.get("results") if isinstance(web, Mapping) else None
    return _hits(results, lambda i: i.get("description"))


def _parse_tavily(data: Any) -> list[Hit]:
    return _hits(data.get("results") if isinstance(data, Mapping) else None, lambda i: i.get("content"))


def _parse_exa(data: Any) -> list[Hit]:
    def snippet(item: Mapping[str, Any]) -> Any:
        highlights = item.get("highlights")
        if isinstance(highlights, list) and highlights:
            return " … ".join(str(h) for h in highlights)
        return item.get("summary") or (str(item.get("text") or "")[:500])

    return _hits(data.get("results") if isinstance(data, Mapping) else None, snippet)


_REQUESTS = {"searxng": _searxng, "brave": _brave, "tavily": _tavily, "exa": _exa}
_PARSERS = {"searxng": _parse_searxng, "brave": _parse_brave, "tavily": _parse_tavily, "exa": _parse_exa}


def render(query: str, provider: str, hits: list[Hit]) -> str:
    if not hits:
        return f"No results for {query!r} ({provider})."
    lines = [f"Results for {query!r} ({provider}):"]
    for n, hit in enumerate(hits, 1):
        lines.append(f"\n{n}. {hit.title}\n   {hit.url}")
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
    return "\n".join(lines)
