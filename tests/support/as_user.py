"""Run the `tooldeck` CLI as an ordinary user: as root, dropped to nobody (uid 65534) with the
system Python 3.11 and a copy of tooldeck and its packages any user can read
(`readable_packages`); as a user, that user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

NOBODY = 65534
Run = Callable[..., "subprocess.CompletedProcess[str]"]


def cli_as_user(root: Path, site: Path) -> Run:
    """A runner of `tooldeck ARGS...` in `root` (given to nobody, with all it holds, as root),
    importing from `site` (made by `readable_packages()`)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(root), "PYTHONPATH": str(site)}
    argv = [sys.executable if os.geteuid() != 0 else "/usr/bin/python3", "-c"]
    argv += ["from tooldeck.cli.main import main; main()"]
    prefix: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, NOBODY, NOBODY)
        for path in root.rglob("*"):
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, *argv, *args], cwd=root, env=env, capture_output=True, text=True, timeout=120
        )

    return run
