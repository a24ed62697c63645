"""Access to ../shared (benchmark data beside the project, or where TOOLDECK_SHARED points)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("TOOLDECK_SHARED", Path(__file__).resolve().parents[3] / "shared"))


def require(path: Path) -> Path:
    """Return `path`; without it the test fails loudly (a missing component never skips)."""
    if not path.exists():
        pytest.fail(
            f"benchmark data not found at {path}: put ../shared beside the project, or point "
            "TOOLDECK_SHARED at it",
            pytrace=False,
        )
    return path
