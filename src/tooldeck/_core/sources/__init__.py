"""Where candidate tools come from: packages, entry points, config `use:` entries, MCP.

Each source returns the tools it found plus `Diagnostic`s for what it skipped, renamed or
failed to load, so nothing disappears silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tooldeck._core.decorator import function_tool
from tooldeck._core.tool import Tool
from tooldeck.errors import SourceError


def tools_from_value(value: Any, *, where: str) -> list[Tool]:
    """Accept a Tool, a list/tuple of Tools, or a zero-argument factory returning those."""
    if isinstance(value, Tool):
        return [value]
    if isinstance(value, list | tuple):
        out: list[Tool] = []
        for i, item in enumerate(value):
            out.extend(tools_from_value(item, where=f"{where}[{i}]"))
        return out
    raise SourceError(
        f"{where} is a {type(value).__name__}, not a tool: expected a Tool (from @tool or Tool(...)) "
        "or a list of them"
    )


def module_tools(module: Any) -> Iterable[tuple[str, Tool]]:
    """Module-level Tool objects (and lists of them named in `__tools__`)."""
    for attr, value in vars(module).items():
        if isinstance(value, Tool):
            yield attr, value
    for i, value in enumerate(getattr(module, "__tools__", ())):
        if isinstance(value, Tool):
            yield f"__tools__[{i}]", value
        elif callable(value):
            yield f"__tools__[{i}]", function_tool(value)
