"""A tool with a long result, served in test_serve_resources.py (the executor cuts it and keeps it)."""

from __future__ import annotations

from tooldeck import tool


def long_lines(count: int) -> str:
    return "\n".join(f"line {i:04d} of the long text" for i in range(count))


@tool(toolset="res", read_only=True)
def long_text(lines: int = 200) -> str:
    """A text of many lines.

    Args:
        lines: How many lines.
    """
    return long_lines(lines)
