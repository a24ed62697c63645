"""Provider dialects: render a loadout's exposed tools as a provider expects them (spec P)."""

from __future__ import annotations

from typing import Any, Literal

from tooldeck.assembly.loadout import Loadout

DialectName = Literal["openai", "responses", "anthropic", "gemini"]


def render_loadout(loadout: Loadout, dialect: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]:
    """The exposed tools of `loadout` as the `tools` array of a request in `dialect` (cached)."""
    if dialect != "openai":
        raise ValueError(f"unknown dialect {dialect!r}")

    def build() -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": loadout.description(t.name),
                    "parameters": dict(t.parameters),
                },
            }
            for t in loadout.exposed
        ]

    result: list[dict[str, Any]] = loadout.cached_render(("openai", strict), build)
    return result
