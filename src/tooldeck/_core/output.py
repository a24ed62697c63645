"""What a handler may return besides a plain value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck._core.content import ContentBlock, checked
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

    `blocks` are content blocks besides text (`tooldeck._core.content`: images, audio, embedded
    resources, resource links, text): without `content`, the text the model reads is made from
    them. `structured` is the result as data (MCP's `structuredContent`, checked against the
    tool's `output_schema` when it has one): without `content` or `blocks`, its JSON is the text.
    """

    content: str = ""
    update: RunStateUpdate | Mapping[str, Any] | None = None
    interrupt: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] | None = None
    blocks: Sequence[ContentBlock] = ()
    structured: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.update is not None and not isinstance(self.update, RunStateUpdate):
            object.__setattr__(self, "update", RunStateUpdate.of(self.update))
        object.__setattr__(self, "blocks", checked(self.blocks))
        if self.structured is not None and not isinstance(self.structured, Mapping):
            raise TypeError(
                f"structured must be a JSON object (a mapping), not {type(self.structured).__name__}"
            )

    @property
    def state_update(self) -> RunStateUpdate | None:
        """`update`, typed (a mapping was checked and converted when the output was built)."""
        return self.update if isinstance(self.update, RunStateUpdate) else None
