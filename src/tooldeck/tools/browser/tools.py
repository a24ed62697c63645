"""The `browser_*` tools, built for one config by the library source.

Each call acts on its session's browser context (`ToolContext.session_id`; one shared context
for calls without a session) through the deck's `BrowserHost`. The tools are hidden, with the
reason, when Playwright or a Chromium is missing; the check only looks for them. Pages come
from outside, so every tool is `open_world` (its output is framed as untrusted content), and
calls of one batch take turns on the browser (`Resource(key="browser")`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from tooldeck.core import Availability, Bounds, Resource, Tool, ToolContext, tool
from tooldeck.errors import ToolError
from tooldeck.tools.browser.executable import availability
from tooldeck.tools.scope import SessionScope
from tooldeck.tools.web.config import WebConfig

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig
    from tooldeck.tools.browser.host import BrowserHost, BrowserSession

T = TypeVar("T")
HostFactory = Callable[[], "BrowserHost"]
DEFAULT_SESSION = "default"
_WRITE = Resource(key="browser", mode="write")
_READ = Resource(key="browser", mode="read")


def session_key(context: ToolContext | None) -> str:
    return (context.session_id if context is not None else None) or DEFAULT_SESSION


async def on_page(
    host_of: HostFactory, context: ToolContext | None, action: Callable[[BrowserSession], Awaitable[T]]
) -> T:
    """Run `action` on the session's page; Playwright's errors become tool errors."""
    from playwright.async_api import Error as PlaywrightError

    from tooldeck.tools.browser.actions import first_line

    host = host_of()
    key = session_key(context)
    scope = context.get(SessionScope) if context is not None else None
    if scope is not None:

        async def close() -> None:
            await host.close_session(key)

        scope.on_close("browser", close)
    try:
        return await host.run(key, action)
    except PlaywrightError as exc:
        raise ToolError(f"browser: {first_line(exc)}", retryable=True) from None


def browser_tools(config: CoreConfig, host_of: HostFactory) -> list[Tool]:
    """The browser toolset for this config; `host_of()` gives the deck's browser host."""
    web = config.section(WebConfig)
    browser = web.browser

    def check() -> Availability:
        return availability(browser)

    common: dict[str, Any] = {
        "toolset": "browser",
        "check": check,
        "open_world": True,
        "timeout": browser.timeout_s * 2 + 30,
    }
    return [
        *_navigation_tools(host_of, common),
        *_interaction_tools(host_of, common),
        *_reading_tools(host_of, common, config),
    ]


def _target(url: str) -> tuple[str, int]:
    """The host and port an http(s) URL names; a clear error for anything else (a URL with
    credentials included: the browser would send them, and messages would repeat them)."""
    from urllib.parse import urlsplit

    from tooldeck.tools.web.userinfo import CREDENTIALS_REFUSED, has_userinfo, shown_url

    shown = shown_url(url)
    if has_userinfo(url):
        raise ToolError(f"{shown}: {CREDENTIALS_REFUSED}", type="invalid_arguments")
    if not url.startswith(("http://", "https://")):
        raise ToolError(f"only http(s) URLs can be opened, got {shown!r}", type="invalid_arguments")
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise ToolError(f"invalid URL {shown!r}: {exc}", type="invalid_arguments") from None
    if not parts.hostname:
        raise ToolError(f"URL {shown!r} has no host", type="invalid_arguments")
    return parts.hostname, port


def _navigation_tools(host_of: HostFactory, common: dict[str, Any]) -> list[Tool]:
    @tool(
        **common,
        resource=_WRITE,
        references=("web_extract",),
        description=(
            "Open an http(s) URL in a real browser (JavaScript runs) and return the page as an "
            "accessibility snapshot: roles and names of its elements, each with a ref (e.g. e12) that "
            "the other browser tools act on.{{if web_extract}} To only read a page's text, web_extract "
            "is faster and cheaper.{{end}}"
        ),
    )
    async def browser_navigate(url: str, context: ToolContext | None = None) -> str:
        """
        Args:
            url: The http(s) URL to open.
        """
        from tooldeck.tools.browser import actions

        host = host_of()
        # Refuse a private target before starting anything; the proxy checks every hop again.
        await host.policy.resolve(*_target(url))
        return await on_page(host_of, context, lambda s: actions.navigate(s, url, host.proxy))

    @tool(**common, resource=_WRITE, description="Go back to the previous page of this session.")
    async def browser_back(context: ToolContext | None = None) -> str:
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, actions.back)

    own_text = {**common, "open_world": False}  # says only what tooldeck did, nothing from a page

    @tool(
        **own_text,
        resource=_WRITE,
        description="Close this session's browser (its pages, cookies and storage).",
    )
    async def browser_close(context: ToolContext | None = None) -> str:
        closed = await host_of().close_session(session_key(context))
        return "Closed the browser session." if closed else "No browser session was open."

    return [browser_navigate, browser_back, browser_close]


def _interaction_tools(host_of: HostFactory, common: dict[str, Any]) -> list[Tool]:
    @tool(
        **common, resource=_WRITE, description="Click the element with this ref; returns the page afterwards."
    )
    async def browser_click(ref: str, context: ToolContext | None = None) -> str:
        """
        Args:
            ref: The element's ref from the latest snapshot, e.g. e12.
        """
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, lambda s: actions.click(s, ref))

    @tool(
        **common,
        resource=_WRITE,
        description="Type text into the input with this ref (replacing its content), optionally pressing Enter.",
    )
    async def browser_type(
        ref: str, text: str, submit: bool = False, context: ToolContext | None = None
    ) -> str:
        """
        Args:
            ref: The input's ref from the latest snapshot, e.g. e7.
            text: The text to enter.
            submit: Press Enter afterwards (submits most forms).
        """
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, lambda s: actions.type_text(s, ref, text, submit))

    @tool(**common, resource=_WRITE, description="Scroll the page up or down; returns the page afterwards.")
    async def browser_scroll(
        direction: Literal["up", "down"] = "down",
        pages: Annotated[float, Bounds(0.1, 10)] = 1.0,
        context: ToolContext | None = None,
    ) -> str:
        """
        Args:
            direction: up or down.
            pages: How far, in screen heights.
        """
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, lambda s: actions.scroll(s, direction, pages))

    @tool(
        **common,
        resource=_WRITE,
        description="Press a key or chord on the page (Enter, Escape, Tab, ArrowDown, Control+A, ...).",
    )
    async def browser_press(key: str, context: ToolContext | None = None) -> str:
        """
        Args:
            key: A key name as Playwright spells it, e.g. Enter, PageDown, Control+A.
        """
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, lambda s: actions.press(s, key))

    return [browser_click, browser_type, browser_scroll, browser_press]


def _reading_tools(host_of: HostFactory, common: dict[str, Any], config: CoreConfig) -> list[Tool]:
    @tool(
        **common,
        resource=_READ,
        read_only=True,
        description="The current page as an accessibility snapshot with element refs (after the page changed by itself).",
    )
    async def browser_snapshot(context: ToolContext | None = None) -> str:
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, lambda s: actions.state(s.page))

    @tool(
        **common,
        resource=_READ,
        read_only=True,
        description="List the images on the current page: URL, alt text, size.",
    )
    async def browser_get_images(
        limit: Annotated[int, Bounds(1, 200)] = 50, context: ToolContext | None = None
    ) -> str:
        """
        Args:
            limit: The most images to list.
        """
        from tooldeck.tools.browser import actions

        return await on_page(host_of, context, lambda s: actions.images(s, limit))

    @tool(
        **common,
        resource=_READ,
        read_only=True,
        needs_vision=True,
        description="Take a screenshot of the current page and answer a question about what it shows (layout, charts, visual state).",
    )
    async def browser_vision(question: str, context: ToolContext | None = None) -> str:
        """
        Args:
            question: What to find out from the screenshot.
        """
        from tooldeck.tools.browser import actions
        from tooldeck.tools.vision import ImagePart, vision_for

        png = await on_page(host_of, context, actions.screenshot)
        service = await vision_for(context, config)
        return await service.ask(ImagePart(png, "image/png"), question)

    return [browser_snapshot, browser_get_images, browser_vision]
