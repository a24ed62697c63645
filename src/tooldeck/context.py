"""What a running tool may know about the call it serves.

A handler asks for it by annotating a parameter with `ToolContext`; that parameter is
left out of the schema the model sees and filled in by the executor.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class ToolContext:
    """Per-call context handed to handlers that ask for it."""

    call_id: str = ""
    tool_name: str = ""
    workspace: Path | None = None
    session_id: str | None = None
    # Run state shared by the tools of one agent run (artifacts, todo list, ...).
    state: dict[str, Any] = field(default_factory=dict)
    # Set when the batch is cancelled; long-running sync handlers should poll it.
    cancelled: threading.Event = field(default_factory=threading.Event)
    # Anything the embedding application wants to pass to its tools.
    extra: dict[str, Any] = field(default_factory=dict)
