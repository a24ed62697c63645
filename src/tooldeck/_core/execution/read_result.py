"""`read_result`: page through a result that was too long to show at once.

When a result is cut, its marker names an id; the full text is kept in the session's spill
area and this tool reads it in pages. The executor always routes `read_result` calls here,
even when the loadout did not list the tool, because its own markers tell the model to use it.
"""

from __future__ import annotations

from tooldeck._core.config import ExecutionConfig
from tooldeck._core.context import ToolContext
from tooldeck._core.decorator import tool
from tooldeck._core.execution.results import SpillStore
from tooldeck.errors import ToolError

# Its pages are sized by the tool itself (at most the session's result limit); never cut again.
PAGES_UNCUT = 1 << 40


@tool(
    toolset="results",
    read_only=True,
    idempotent=True,
    open_world=False,
    essential=True,
    max_result_chars=PAGES_UNCUT,
)
def read_result(id: str, offset: int = 0, limit: int = 20_000, context: ToolContext | None = None) -> str:
    """Read part of a long tool result that was truncated.

    Args:
        id: The result id named in the truncation marker.
        offset: Character offset to start reading at.
        limit: How many characters to read (at most the session's result size limit).
    """
    spill = context.get(SpillStore) if context is not None else None
    if spill is None:
        raise ToolError("no kept results here: read_result only works inside a tool-calling session")
    if offset < 0:
        raise ToolError("offset must be >= 0", type="invalid_arguments", retryable=True)
    limits = context.get(ExecutionConfig) if context is not None else None
    cap = limits.max_result_chars if limits is not None else 100_000
    return spill.read(id, offset, min(max(limit, 1), cap, 100_000))
