"""Shared fixtures for dialect tests: the real schema corpora in ../shared/data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.support.shared_data import SHARED, require

DATA = SHARED / "data"  # the one setting for ../shared: TOOLDECK_SHARED
LIVEMCP = DATA / "schemas" / "livemcp_tool_schemas.json"
BFCL = DATA / "retrieval" / "bfcl_tools.json"


def _load(path: Path) -> list[dict[str, Any]]:
    require(path)  # fails loudly without ../shared/data
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def livemcp_tools() -> list[dict[str, Any]]:
    """The 527 LiveMCPBench tools as {server, name, description, inputSchema}."""
    tools = _load(LIVEMCP)
    assert len(tools) == 527
    return tools


@pytest.fixture(scope="session")
def bfcl_tools() -> list[dict[str, Any]]:
    """The 1,853 BFCL tools as {name, description, parameters} (non-standard types included)."""
    tools = _load(BFCL)
    assert len(tools) == 1853
    return tools
