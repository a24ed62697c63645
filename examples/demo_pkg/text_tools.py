"""Discovered text tools. `word_count` here is shadowed by the config entry of the same name."""

from __future__ import annotations

import json

from tooldeck import tool


@tool(toolset="text", group="text")
def word_count(text: str) -> str:
    """Count words (the discovered variant; the config's `tools:` entry wins over it).

    Args:
        text: The text to measure.
    """
    return json.dumps({"words": len(text.split())})


@tool(toolset="text", group="text")
def slugify(text: str) -> str:
    """Turn a title into a URL slug.

    Args:
        text: The title.
    """
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())
