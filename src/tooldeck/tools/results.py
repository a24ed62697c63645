"""`read_result`: page through a result that was too long to show at once (spec X6).

When a result is cut, its marker names an id; the full text is kept in the session's spill
area and this tool reads it in pages. The executor always routes `read_result` calls here,
even when the loadout did not list the tool, because its own markers tell the model to use it.
"""

from __future__ import annotations

from tooldeck.context import ToolContext
from tooldeck.decorator import tool
from tooldeck.execution.results import SpillStore
from tooldeck.execution.types import ToolError


@tool(toolset="results", read_only=True, idempotent=True, open_world=False)
def read_result(id: str, offset: int = 0, limit: int = 20_000, context: ToolContext | None = None) -> str:
    """Read part of a long tool result that was truncated.

    Args:
        id: The result id named in the truncation marker.
        offset: Character offset to start reading at.
        limit: How many characters to read (at most the session's result size limit).
    """
    spill = context.extra.get("spill") if context is not None else None
    if not isinstance(spill, SpillStore):
        raise ToolError("no kept results here: read_result only works inside a tool-calling session")
    if offset < 0:
        raise ToolError("offset must be >= 0", type="invalid_arguments", retryable=True)
    page_max = context.extra.get("max_result_chars") if context is not None else None
    cap = page_max if isinstance(page_max, int) else 100_000
    return spill.read(id, offset, min(max(limit, 1), cap, 100_000))
