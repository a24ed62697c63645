"""`SessionRunner`: the agent loop's batch runner, one per conversation.

Every batch runs in the conversation's `Session` (its grants, spill store, services and
middleware), over the loadout the model saw for that iteration: the current assembly, with the
deferred tools the run promoted exposed (`ToolView`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tooldeck.agent.toolview import ToolView
from tooldeck.core import RunState, Session, ToolCall, ToolResult


class SessionRunner:
    """Runs each batch of a session's tool calls against the loadout of that moment."""

    def __init__(self, view: ToolView, session: Session) -> None:
        self.view = view
        self.session = session

    @property
    def session_id(self) -> str | None:
        return self.session.session_id

    async def execute(self, calls: Sequence[ToolCall], *, state: RunState | None = None) -> list[ToolResult]:
        state = state if state is not None else self.session.state
        return await self.session.execute(calls, loadout=self.view.for_state(state), state=state)
