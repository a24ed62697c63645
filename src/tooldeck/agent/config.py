"""The agent section of the config (`agent:`): the loop's budgets, delegation, the session
database and the memory files. Owned here, beside the loop that reads it; `tooldeck.Config`
composes it (the core knows nothing of it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from tooldeck.core import MAX_SECONDS, ConfigSection, config_section

if TYPE_CHECKING:
    # Bounds in the annotations stay strings until pydantic reads them (the validator puts these
    # names into this module first), so importing the config never imports them.
    from collections.abc import Callable
    from pathlib import Path

    from annotated_types import Ge, Gt, Le


@config_section
class AgentConfig(ConfigSection):
    """The agent loop and its agent-level tools."""

    # Model calls with tool use per turn before the agent must answer.
    max_iterations: Annotated[int, Ge(1)] = 90
    # The system prompt (default: a short general one).
    system_prompt: str | None = None
    # Sub-agents of delegate_task running at the same time.
    delegation_max_concurrency: Annotated[int, Ge(1)] = 3
    # Seconds one sub-agent may run.
    delegation_timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 600.0
    # Sub-agents' own iteration budget (default: max_iterations).
    delegation_max_iterations: Annotated[int, Ge(1)] | None = None
    # The session database; relative to the config file; default <home>/state.db.
    sessions_db: str | None = None
    # Size caps of MEMORY.md and USER.md in the tooldeck home, in characters.
    memory_max_chars: Annotated[int, Ge(100)] = 2200
    # Size cap of USER.md (facts about the user), in characters.
    user_max_chars: Annotated[int, Ge(100)] = 1375

    def stores(self, resolve: Callable[[str], Path]) -> list[Path]:
        if not self.sessions_db:
            return []
        db = resolve(self.sessions_db)
        return [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
