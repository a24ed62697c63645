"""Root fixtures: the scripted model server and a temp tooldeck home, for every test folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.fixtures import home, scripted_server  # noqa: F401
