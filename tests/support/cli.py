"""`tooldeck` as a separate process, the way a user or a script runs it: no real model's keys,
no tracing endpoint of the machine, no terminal on stdin (nobody to answer a prompt), the
tooldeck home the test chooses."""

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
    return subprocess.run(
        [TOOLDECK, *args],
        cwd=cwd,
        env=tooldeck_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def tooldeck_env(home: Path | None = None) -> dict[str, str]:
    """The environment `tooldeck` runs with here (for a process the test keeps running too):
    this one without model keys, tooldeck's own variables or an OpenTelemetry exporter, but with
    the test process's private cache (conftest.py), never the user's; `home`: its TOOLDECK_HOME."""
    unset = ("OPENAI_", "ANTHROPIC_", "TOOLDECK_", "OTEL_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unset) or k == "TOOLDECK_CACHE_DIR"}
    if home is not None:
        env["TOOLDECK_HOME"] = str(home)
    return env
