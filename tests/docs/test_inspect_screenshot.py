"""The screenshot of `tooldeck inspect` that the docs show is taken here, in Chromium, over the
example configuration, by the same script a person would run (scripts/inspect_screenshot.py)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOWN = ROOT / "docs" / "inspect.png"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_docs_screenshot_of_inspect_is_taken_in_chromium(tmp_path: Path, home: Path) -> None:
    out = tmp_path / "inspect.png"
    env = {**os.environ, "TOOLDECK_HOME": str(home), "TOOLDECK_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "inspect_screenshot.py"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    # The script waits for the loadout's `word_count` row before it shoots: a page that did not
    # load, or showed no loadout, fails there.
    assert proc.returncode == 0, proc.stderr
    taken = out.read_bytes()
    width, height = png_size(taken)
    assert width == 1360 and height > 860  # the whole page: below the exposed rows, the hidden ones
    assert len(taken) > 50_000, "a nearly empty page (a rendered loadout table is far larger)"
    # The docs show this run's picture: replaced when the page looks different now (a checkout
    # this run may not write keeps the picture it has).
    if SHOWN.read_bytes() != taken and os.access(SHOWN, os.W_OK):
        SHOWN.write_bytes(taken)
    assert "inspect.png" in (ROOT / "docs" / "inspect.md").read_text(encoding="utf-8")
