"""The `tools` array for a request, in the client's dialect (rendering lives in `tooldeck._core.dialects`)."""

from __future__ import annotations

from typing import Any, Literal

from tooldeck.agent.models.base import ModelSettings
from tooldeck.core import Loadout, render_loadout


def render_tools(
    loadout: Loadout, dialect: Literal["openai", "responses", "anthropic"], settings: ModelSettings
) -> list[dict[str, Any]]:
    """The loadout's exposed tools for `dialect`; the model name picks the schema profile
    (sanitizers for providers with narrow schema support)."""
    return render_loadout(loadout, dialect, strict=settings.strict_tools, profile=settings.model)
