"""Run `python -m benchmarks ...` from the checkout, as a user would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def bench(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
