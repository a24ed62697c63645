"""The web section of the config (`web:`): fetching, search, the browser, and which addresses
the web tools may reach. Owned here, beside the tools that read it, with its own checks;
`tooldeck.Config` composes it (the core knows nothing of it)."""

from __future__ import annotations

import re
from dataclasses import field
from typing import TYPE_CHECKING, Annotated, Literal

from tooldeck.core import MAX_SECONDS, ConfigSection, config_section
from tooldeck.errors import ConfigError
from tooldeck.tools.browser.config import BrowserConfig

if TYPE_CHECKING:
    # Bounds in the annotations stay strings until pydantic reads them (the validator puts these
    # names into this module first), so importing the config never imports them.
    from annotated_types import Ge, Gt, Le


@config_section
class WebSearchConfig(ConfigSection):
    """Which search service `web_search` asks; without a provider the tool is hidden."""

    # The search service; without one, web_search is hidden.
    provider: Literal["searxng", "brave", "tavily", "exa"] | None = None
    # SearXNG: the instance's address (required). Others: overrides the service's API address.
    url: str | None = None
    # The API key itself (write it as "${VAR}"), or the env var holding it (default per
    # provider: BRAVE_API_KEY, TAVILY_API_KEY, EXA_API_KEY), read when the tool is checked.
    api_key: str | None = field(default=None, repr=False)
    # The environment variable holding the API key (default per provider, see api_key).
    api_key_env: str | None = None
    # Seconds one search may take.
    timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 15.0
    # The most results one call may ask for.
    max_results: Annotated[int, Ge(1)] = 10

    def check(self, key: str) -> None:
        if self.url is not None and not re.match(r"https?://[^/\s]+", self.url):
            raise ConfigError(f"must be an http(s) URL, got {self.url!r}", path=f"{key}.url")
        if self.provider == "searxng" and not self.url:
            raise ConfigError("the searxng provider needs the instance's url", path=f"{key}.url")


@config_section
class WebConfig(ConfigSection):
    """The web tools: fetching, search, the browser, and which addresses they may reach."""

    # Private, loopback, link-local and cloud-metadata addresses are refused unless this is true.
    allow_private_networks: bool = False
    # Networks reachable even when private ("10.1.2.0/24", "127.0.0.1"), for a known intranet host.
    allowed_networks: list[str] = field(default_factory=list)
    # web_extract: URLs per call.
    max_urls: Annotated[int, Ge(1)] = 5
    # web_extract: seconds per URL.
    timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 20.0
    # web_extract: bytes downloaded per URL (more is a too_large error).
    max_bytes: Annotated[int, Ge(1)] = 5_000_000
    # web_extract: characters returned per URL.
    max_chars: Annotated[int, Ge(100)] = 40_000
    # Redirects followed per URL (each hop checked again).
    max_redirects: Annotated[int, Ge(0)] = 5
    # The User-Agent header of web requests.
    user_agent: str = "Mozilla/5.0 (compatible; tooldeck; +https://pypi.org/project/tooldeck/)"
    # web_search's provider.
    search: WebSearchConfig = field(default_factory=WebSearchConfig)
    # The browser tools' browser.
    browser: BrowserConfig = field(default_factory=BrowserConfig)

    def check(self, key: str) -> None:
        import ipaddress

        for i, net in enumerate(self.allowed_networks):
            try:
                ipaddress.ip_network(net, strict=False)
            except ValueError:
                raise ConfigError(
                    f"not an IP address or network (e.g. 10.1.2.0/24), got {net!r}",
                    path=f"{key}.allowed_networks[{i}]",
                ) from None
