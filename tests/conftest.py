"""Root fixtures: the scripted model server and a temp tooldeck home, for every test folder."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.fixtures import home, scripted_server  # noqa: F401

# Validated config files are cached under the user's cache folder; tests use a private one.
os.environ["TOOLDECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="tooldeck-test-cache-")
