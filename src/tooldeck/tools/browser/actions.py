"""What the browser tools do to a session's page, run on the browser host's loop.

The model sees a page as its accessibility tree (Playwright's snapshot for AI): roles, names and
states, each actionable element with a ref such as `e12` that click and type accept. After an
action, the page's new state is returned, so the model always has current refs. Playwright is
imported only here and only when an action runs.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from tooldeck.errors import ToolError
from tooldeck.tools.browser.host import BrowserSession
from tooldeck.tools.browser.proxy import DENIED_HEADER, GuardProxy

SNAPSHOT_MAX_CHARS = 20_000
REF = re.compile(r"^(f\d+)?e\d+$")
_SETTLE_MS = 5000
_IMAGES_JS = """() => Array.from(document.images).map(i => ({
  src: i.currentSrc || i.src, alt: i.alt || "", width: i.naturalWidth, height: i.naturalHeight
}))"""


async def state(page: Any, note: str = "") -> str:
    """Title, URL and the accessibility snapshot with element refs (cut past a limit)."""
    snapshot: str = await page.aria_snapshot(mode="ai")
    if len(snapshot) > SNAPSHOT_MAX_CHARS:
        snapshot = snapshot[:SNAPSHOT_MAX_CHARS] + (
            f"\n[snapshot cut at {SNAPSHOT_MAX_CHARS} of {len(snapshot)} characters; scroll or act on what is shown]"
        )
    head = [f"Page: {await page.title() or '(no title)'}", f"URL: {page.url}"]
    if note:
        head.append(note)
    return "\n".join(head) + "\n\n" + snapshot


async def settle(page: Any) -> None:
    """Give the page a moment to finish loading after an action (bounded, never an error)."""
    from playwright.async_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):
        await page.wait_for_load_state("load", timeout=_SETTLE_MS)


def _refusals(proxy: GuardProxy, seq: int) -> list[str]:
    return [f"{d.target}: {d.reason}" for d in proxy.since(seq)]


async def navigate(session: BrowserSession, url: str, proxy: GuardProxy) -> str:
    from playwright.async_api import Error as PlaywrightError

    page = session.page
    seq = proxy.seq
    try:
        response = await page.goto(url, wait_until="domcontentloaded")
    except PlaywrightError as exc:
        refused = _refusals(proxy, seq)
        if refused:
            raise ToolError(f"navigation to {url} was refused: {refused[0]}", type="denied") from None
        raise ToolError(f"navigation to {url} failed: {first_line(exc)}", retryable=True) from None
    if response is not None and response.headers.get(DENIED_HEADER):
        # The refusal of the page itself (not of its favicon or other requests that followed).
        denials = proxy.since(seq)
        mine = [d for d in denials if d.target == response.url] or denials
        where = f"{mine[0].target}: {mine[0].reason}" if mine else response.url
        raise ToolError(f"navigation to {url} was refused: {where}", type="denied")
    await settle(page)
    notes = []
    if response is not None and response.status >= 400:
        notes.append(f"HTTP {response.status} {response.status_text}".rstrip())
    blocked = _refusals(proxy, seq)
    if blocked:
        notes.append(f"{len(blocked)} request(s) of this page to blocked addresses were refused")
    return await state(page, "; ".join(notes))


async def element(session: BrowserSession, ref: str) -> Any:
    """The element `ref` names in the page's last snapshot; a clear error when there is none."""
    if not REF.match(ref or ""):
        raise ToolError(
            f"invalid ref {ref!r}: use a ref from browser_snapshot such as 'e12'", type="invalid_arguments"
        )
    locator = session.page.locator(f"aria-ref={ref}")
    if await locator.count() == 0:
        raise ToolError(
            f"no element with ref {ref!r} on the page; take a new browser_snapshot for current refs",
            retryable=True,
        )
    return locator


async def click(session: BrowserSession, ref: str) -> str:
    locator = await element(session, ref)
    await locator.click()
    await settle(session.page)
    return await state(session.page, f"Clicked {ref}.")


async def type_text(session: BrowserSession, ref: str, text: str, submit: bool) -> str:
    locator = await element(session, ref)
    await locator.fill(text)
    if submit:
        await locator.press("Enter")
        await settle(session.page)
    return await state(session.page, f"Typed into {ref}{' and pressed Enter' if submit else ''}.")


async def scroll(session: BrowserSession, direction: str, pages: float) -> str:
    page = session.page
    height = (page.viewport_size or {}).get("height", 900)
    await page.mouse.wheel(0, (1 if direction == "down" else -1) * height * pages)
    await page.wait_for_timeout(250)
    where = await page.evaluate(
        "() => [Math.round(window.scrollY), document.documentElement.scrollHeight, window.innerHeight]"
    )
    return await state(
        page, f"Scrolled {direction}; showing pixels {where[0]}-{where[0] + where[2]} of {where[1]}."
    )


async def back(session: BrowserSession) -> str:
    before = session.page.url
    response = await session.page.go_back(wait_until="domcontentloaded")
    if response is None and session.page.url == before:
        raise ToolError("there is no previous page in this session's history")
    await settle(session.page)
    return await state(session.page, "Went back.")


async def press(session: BrowserSession, key: str) -> str:
    await session.page.keyboard.press(key)
    await settle(session.page)
    return await state(session.page, f"Pressed {key}.")


async def images(session: BrowserSession, limit: int) -> str:
    found = await session.page.evaluate(_IMAGES_JS)
    shown = [i for i in found if i.get("src") and (i.get("width", 0) > 1 or i.get("height", 0) > 1)]
    if not shown:
        return f"No images on {session.page.url}."
    lines = [f"{len(shown)} image(s) on {session.page.url}:"]
    for n, img in enumerate(shown[:limit], 1):
        src = img["src"] if len(img["src"]) <= 300 else img["src"][:300] + "..."
        alt = f' alt="{img["alt"]}"' if img.get("alt") else ""
        lines.append(f"{n}. {src}{alt} ({img.get('width', 0)}x{img.get('height', 0)})")
    if len(shown) > limit:
        lines.append(f"... and {len(shown) - limit} more")
    return "\n".join(lines)


async def screenshot(session: BrowserSession) -> bytes:
    data: bytes = await session.page.screenshot(type="png")
    return data


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
