"""A deck over `tmp_path/ws` with its home in `tmp_path/home`, sandboxed by bubblewrap."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tooldeck import Deck, parse_config


def workspace_deck(tmp_path: Path, toolsets: Sequence[str] = ("terminal", "file"), **sections: Any) -> Deck:
    """The deck; `sections` are config sections laid over the defaults."""
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws"},
        "home": "home",
        "platform_toolsets": {"cli": list(toolsets)},
    }
    data.update(sections)
    return Deck(parse_config(data, base_dir=str(tmp_path)))
