"""Fixtures for the progressive-disclosure tests: the scripted model server on loopback, a temp tooldeck home."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.fixtures import home, scripted_server  # noqa: F401
