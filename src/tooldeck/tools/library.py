"""The built-in tools whose behaviour depends on the config: web, browser, vision and skills.

A requirement check takes no arguments, yet whether `web_search` works depends on
`web.search.provider`, and what `skills_list` finds depends on `skills_dirs`. So these tools are
built for one config by this source (the deck adds it beside the built-in package source),
their handlers and checks closing over the config's sections. Building them imports nothing
heavy: httpx, trafilatura and Playwright are imported when a tool is first called, and the
browser check looks for an executable, never importing Playwright.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck.core import Source, SourceListing
from tooldeck.errors import ToolError
from tooldeck.tools.web.config import WebConfig

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig
    from tooldeck.tools.browser.host import BrowserHost


class LibrarySource(Source):
    """The web, browser, vision and skills toolsets, built for `config`."""

    def __init__(self, config: CoreConfig, *, name: str = "library") -> None:
        super().__init__(name, "builtin")
        self.config = config
        self._browser: BrowserHost | None = None
        self._closed = False

    def load(self) -> SourceListing:
        from tooldeck.tools.browser.tools import browser_tools
        from tooldeck.tools.skills import skills_tools
        from tooldeck.tools.vision import vision_tools
        from tooldeck.tools.web.tools import web_tools

        cfg = self.config
        tools = [*web_tools(cfg.section(WebConfig)), *vision_tools(cfg)]
        tools += browser_tools(cfg, self._host)
        skill_tools, notes = skills_tools(cfg)
        tools += skill_tools
        return SourceListing(tuple(tools), tuple(notes))

    @property
    def browser(self) -> BrowserHost | None:
        """The browser host, once a browser tool has been called."""
        return self._browser

    def _host(self) -> BrowserHost:
        """The browser of this source, started on first use."""
        if self._browser is None:
            from tooldeck.tools.browser.host import BrowserHost

            with self._lock:
                if self._closed:
                    raise ToolError("the browser tools' deck was closed", type="unavailable")
                if self._browser is None:
                    self._browser = BrowserHost(self.config.section(WebConfig))
        return self._browser

    def close(self) -> None:
        """Close the browser (every session's context, then Chromium itself)."""
        with self._lock:
            self._closed = True
        if self._browser is not None:
            self._browser.close()  # the host stays, closed: later calls get a clear error
        super().close()
