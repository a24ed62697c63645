"""Take docs/inspect.png: `tooldeck inspect` over examples/tooldeck.yaml, in Debian's Chromium.

.venv/bin/python scripts/inspect_screenshot.py [OUT.png]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "inspect.png"
    env = {**os.environ, "OPENWEATHER_API_KEY": "", "BRAVE_API_KEY": ""}
    tooldeck = Path(sys.executable).parent / "tooldeck"
    proc = subprocess.Popen(
        [str(tooldeck), "inspect", "--no-open", "--config", "tooldeck.yaml"],
        cwd=ROOT / "examples",
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    try:
        url = proc.stdout.readline().strip()
        if not url.startswith("http://"):
            print(f"no URL from tooldeck inspect: {url!r}", file=sys.stderr)
            return 1
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1360, "height": 860})
            page.goto(url)
            page.get_by_role("link", name="word_count", exact=True).first.wait_for()
            page.screenshot(path=str(out), full_page=True)  # every row: the hidden ones say why
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        proc.stdout.close()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
