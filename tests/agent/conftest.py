"""Fixtures for the agent tests: the scripted model server on loopback, a temp tooldeck home."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.scripted_server import ScriptedServer


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
    """A fresh tooldeck home (MEMORY.md, USER.md, state.db) for the test."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("TOOLDECK_HOME", str(path))
    return path
