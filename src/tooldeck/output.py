"""What a handler may return besides a plain value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a handler may return instead of a plain value, for the other forms of tools.

    `update` is merged into the run state (state-update tools such as `present_files`);
    `interrupt` stops the run and hands a question to the user (control-flow tools such
    as `clarify`); `content` is what the model reads either way. `meta` goes to the result's
    `meta` for programs rather than the model (e.g. a command's `exit_code`).
    """

    content: str
    update: Mapping[str, Any] | None = None
    interrupt: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] | None = None
