"""Closing the MCP sessions a block of work opened, without importing the MCP machinery when
that work never touched it (a command line that used no MCP server pays nothing here)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

# Looked up, never imported: this module sits below the sources in the layers.
_LOOP_MODULE = "tooldeck._core.sources.mcp.loop"


def _shared_loop() -> Any:
    """The shared MCP loop (`sources.mcp.loop.McpLoop`) if one was started, else None."""
    module = sys.modules.get(_LOOP_MODULE)  # not imported: no session was ever opened
    return None if module is None else module.current_mcp_loop()


@contextlib.contextmanager
def closing_sessions_opened() -> Iterator[None]:
    """Close, when the block ends, the MCP sessions (and their server processes) opened within
    it; those open before it stay open. A command line run in a process that goes on (the
    CLI's `run`) leaves nothing running behind it, as the console script leaves nothing."""
    loop = _shared_loop()
    before: list[Any] = loop.open_owners() if loop is not None else []
    try:
        yield
    finally:
        loop = _shared_loop()
        if loop is not None:
            loop.close_all(keep=before)
