"""Run the real `tooldeck` console script in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent / "tooldeck"


def tooldeck(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, cwd=cwd, env=full_env, timeout=timeout, check=False
    )
