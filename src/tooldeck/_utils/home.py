"""The tooldeck home: where sessions, memory files, grants and spilled results live.

Config `home:` (relative to the config file), else `$TOOLDECK_HOME`, else `~/.tooldeck`.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = "~/.tooldeck"


def tooldeck_home(configured: str | None = None, *, base_dir: str | None = None) -> Path:
    """The tooldeck home folder (not created here)."""
    value = configured or os.environ.get("TOOLDECK_HOME") or DEFAULT_HOME
    path = Path(os.path.expanduser(value))
    if not path.is_absolute() and base_dir and configured:
        path = Path(base_dir) / path
    return path
