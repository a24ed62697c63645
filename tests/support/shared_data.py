"""Access to ../shared (benchmark data beside the project): CI has it; a user's clone may not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("TOOLDECK_SHARED", Path(__file__).resolve().parents[3] / "shared"))


def require(path: Path) -> Path:
    """Return `path`; without it, skip with a message — except in CI, where that is a failure."""
    if not path.exists():
        message = f"benchmark data not found at {path} (clone ../shared beside the project to run this)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must have it", pytrace=False)
        pytest.skip(message)
    return path
