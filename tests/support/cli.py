"""`tooldeck` as a separate process, the way a user or a script runs it: no real model's keys,
no terminal on stdin (nobody to answer a prompt), the tooldeck home the test chooses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))


def run_tooldeck(
    cwd: Path, *args: str, home: Path | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` in `cwd`; `home`: its TOOLDECK_HOME (None: the config's `home:`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "TOOLDECK_"))}
    if home is not None:
        env["TOOLDECK_HOME"] = str(home)
    return subprocess.run(
        [TOOLDECK, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
