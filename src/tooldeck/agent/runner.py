"""`SessionRunner`: the agent loop's batch runner, one per conversation.

Every batch runs on an `Executor` built over the loadout the model saw for that iteration
(the current assembly, with the deferred tools it promoted exposed). What must outlive one
batch lives here: the session id, the approval grants of the session, the services offered to
agent-level tools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooldeck.agent.toolview import ToolView
from tooldeck.execution.events import EventSink
from tooldeck.execution.executor import Executor
from tooldeck.execution.policy import Approver, Grants, Policy
from tooldeck.execution.types import ToolCall, ToolResult


class SessionRunner:
    """Runs each batch of a session's tool calls against the loadout of that moment."""

    def __init__(
        self,
        view: ToolView,
        *,
        session_id: str,
        policy: Policy | None = None,
        approver: Approver | None = None,
        events: EventSink | None = None,
        spill_dir: Path | None = None,
        services: Mapping[type, object] | None = None,
    ) -> None:
        self.view = view
        self.session_id = session_id
        self.policy = policy
        self.approver = approver
        self.events = events
        self.spill_dir = spill_dir
        self.services = dict(services or {})
        self.grants = Grants()

    def executor(self, state: dict[str, Any]) -> Executor:
        return Executor(
            self.view.for_state(state),
            policy=self.policy,
            approver=self.approver,
            events=self.events,
            session_id=self.session_id,
            spill_dir=self.spill_dir,
            grants=self.grants,
            services=self.services,
        )

    async def execute(
        self, calls: Sequence[ToolCall], *, state: dict[str, Any] | None = None
    ) -> list[ToolResult]:
        state = state if state is not None else {}
        return await self.executor(state).execute(calls, state=state)
