"""`Explanation`: what `deck.explain()` and `tooldeck explain` say about the tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tooldeck._core.assembly.loadout import Fate
from tooldeck._core.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class Explanation:
    """Every candidate tool's fate, plus what the sources and the assembly had to say."""

    platform: str
    fates: tuple[Fate, ...]
    diagnostics: tuple[Diagnostic, ...]

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "name": f.name,
                "toolset": f.tool.toolset,
                "source": f.tool.source,
                "status": f.status,
                "gate": f.gate,
                "reason": f.reason,
            }
            for f in self.fates
        ]


__all__ = ["Explanation"]
