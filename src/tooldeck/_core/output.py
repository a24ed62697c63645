"""What a handler may return besides a plain value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooldeck._core.run_state import RunStateUpdate


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a handler may return instead of a plain value, for the other forms of tools.

    `update` is applied to the run state (state-update tools such as `present_files`): a
    `RunStateUpdate`, or a mapping of its fields (`{"artifacts": [...]}`) checked here - an
    unknown field or a value of the wrong type is a ValueError naming it;
    `interrupt` stops the run and hands a question to the user (control-flow tools such
    as `clarify`); `content` is what the model reads either way. `meta` goes to the result's
    `meta` for programs rather than the model (e.g. a command's `exit_code`).
    """

    content: str
    update: RunStateUpdate | Mapping[str, Any] | None = None
    interrupt: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.update is not None and not isinstance(self.update, RunStateUpdate):
            object.__setattr__(self, "update", RunStateUpdate.of(self.update))

    @property
    def state_update(self) -> RunStateUpdate | None:
        """`update`, typed (a mapping was checked and converted when the output was built)."""
        return self.update if isinstance(self.update, RunStateUpdate) else None
