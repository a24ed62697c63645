"""The browser section of the config (`web.browser`): which Chromium the `browser_*` tools drive
and how. Owned here, beside the tools that read it; `tooldeck.Config` composes it."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Annotated

from tooldeck.core import MAX_SECONDS, ConfigSection, config_section

if TYPE_CHECKING:
    # Bounds in the annotations stay strings until pydantic reads them (the validator puts these
    # names into this module first), so importing the config never imports them.
    from annotated_types import Gt, Le


@config_section
class BrowserConfig(ConfigSection):
    """The browser the `browser_*` tools drive (Playwright over Chromium)."""

    # A Chromium executable; default: chromium on PATH, else Playwright's own browser.
    executable: str | None = None
    # Run the browser without a window (a window needs a display).
    headless: bool = True
    # Seconds one browser action (navigation, click, ...) may take.
    timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 30.0
    # Extra Chromium command-line flags.
    args: list[str] = field(default_factory=list)
