"""The tools the adapter-out tests hand to each framework: `add` runs, `wipe` needs an approval
nobody gives, `elsewhere` is hidden by the platform's toolsets."""

from __future__ import annotations

from tooldeck import tool


@tool(toolset="math")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(toolset="math", requires_approval=True)
def wipe(path: str) -> str:
    """Wipe a path."""
    raise AssertionError("never run without approval")


@tool(toolset="other")
def elsewhere() -> str:
    """Not selected for this platform."""
    return "no"
