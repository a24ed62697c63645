"""Pytest fixtures other test folders can reuse. In a conftest.py:

import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests/ folder
from support.fixtures import home, scripted_server  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tooldeck.testing.scripted_server import ScriptedServer


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A `ScriptedServer` on 127.0.0.1 and a free port, running in a thread; add steps with `.add()`."""
    server = ScriptedServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh tooldeck home (MEMORY.md, USER.md, state.db) for the test, also set as TOOLDECK_HOME."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("TOOLDECK_HOME", str(path))
    return path
