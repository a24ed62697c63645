"""Run `tooldeck` as a subprocess (support.cli.tooldeck_command: the warm one unless
TOOLDECK_TEST_WARM=0), or the same command line in the test's own process (`tooldeck_here`, see
support.cli_in_process) where what is tested is what the command does, not that it is a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.cli import tooldeck_text
from support.cli_in_process import tooldeck_in_process

BIN = Path(sys.executable).parent / "tooldeck"


def tooldeck(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return tooldeck_text(list(args), cwd, {**os.environ, **(env or {})}, timeout=timeout)


def tooldeck_here(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` as `tooldeck` would run it, in this process: its exit code and output, with
    no new interpreter importing tooldeck (~0.5 s CPU a command)."""
    return tooldeck_in_process(Path(cwd or os.getcwd()), *args, env={**os.environ, **(env or {})})
