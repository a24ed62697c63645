"""The `tools` array for a request, in the client's dialect (rendering lives in `tooldeck.dialects`)."""

from __future__ import annotations

from typing import Any, Literal

from tooldeck.assembly.loadout import Loadout
from tooldeck.dialects import render_loadout


def render_tools(
    loadout: Loadout, dialect: Literal["openai", "responses", "anthropic"], *, strict: bool
) -> list[dict[str, Any]]:
    """Render through the dialect module; fall back to converting the Chat Completions shape
    while a dialect is not registered there yet (the conversion is mechanical)."""
    try:
        return render_loadout(loadout, dialect, strict=strict)
    except ValueError:
        if dialect == "openai":
            raise
    chat = render_loadout(loadout, "openai", strict=strict)
    out: list[dict[str, Any]] = []
    for item in chat:
        fn = item["function"]
        if dialect == "responses":
            entry = {"type": "function", "name": fn["name"], "description": fn.get("description", "")}
            entry["parameters"] = fn.get("parameters", {"type": "object", "properties": {}})
            if "strict" in fn:
                entry["strict"] = fn["strict"]
            out.append(entry)
        else:
            schema = fn.get("parameters", {"type": "object", "properties": {}})
            out.append({"name": fn["name"], "description": fn.get("description", ""), "input_schema": schema})
    return out
