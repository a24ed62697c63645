"""Finding a Chromium for the browser tools without importing Playwright.

The check that hides the browser tools runs at every assembly (cached), so it only looks: is
the `playwright` package installed (its module spec), and is there a browser executable — the
configured one, a system Chromium on PATH (Debian's `chromium`), or a browser Playwright itself
downloaded into its cache.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck.core import Availability

if TYPE_CHECKING:
    from tooldeck.tools.browser.config import BrowserConfig

SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
# Inside Playwright's browser cache: full Chromium builds first, then the headless shell.
_OWN_PATTERNS = (
    "chromium-*/chrome-linux*/chrome",
    "chromium_headless_shell-*/chrome-linux*/headless_shell",
    "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
    "chromium-*/chrome-win*/chrome.exe",
)


def _which(name: str) -> str | None:
    """`shutil.which` for this check, without importing shutil (and its compression modules)."""
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def playwright_cache() -> Path:
    configured = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured and configured != "0":
        return Path(configured)
    return Path(os.path.expanduser("~/.cache/ms-playwright"))


def find_executable(cfg: BrowserConfig) -> tuple[str | None, str]:
    """The browser to launch and where it was found, or (None, what was looked for)."""
    if cfg.executable:
        path = _which(cfg.executable) or cfg.executable
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path, "web.browser.executable"
        return None, f"web.browser.executable {cfg.executable!r} is not an executable file"
    for name in SYSTEM_NAMES:
        found = _which(name)
        if found:
            return found, f"{name} on PATH"
    import glob

    cache = playwright_cache()
    for pattern in _OWN_PATTERNS:
        hits = sorted(glob.glob(str(cache / pattern)), reverse=True)
        if hits:
            return hits[0], f"Playwright's browser in {cache}"
    return None, (
        "no Chromium found: install the system browser (Debian: apt-get install chromium), "
        "or set web.browser.executable"
    )


def availability(cfg: BrowserConfig) -> Availability:
    """Whether the browser tools can run here, and why not."""
    try:
        has_playwright = importlib.util.find_spec("playwright") is not None
    except (ImportError, ValueError):
        has_playwright = False
    if not has_playwright:
        return Availability.no("Python package playwright not installed (pip install 'tooldeck[browser]')")
    path, where = find_executable(cfg)
    if path is None:
        return Availability.no(where)
    return Availability.yes(f"{path} ({where})")
