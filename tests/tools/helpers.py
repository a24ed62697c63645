"""Loadouts of file tools over a test workspace."""

from __future__ import annotations

from pathlib import Path

from tooldeck import parse_config
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.tool import Tool


def ws_loadout(ws: Path, *tools: Tool) -> Loadout:
    """`tools` exposed, under a config whose workspace is `ws` (its home beside it)."""
    config = parse_config({"sandbox": {"workspace": str(ws)}, "home": str(Path(ws).parent / "home")})
    return Loadout("t", tuple(tools), (), (), {}, {}, config=config)
