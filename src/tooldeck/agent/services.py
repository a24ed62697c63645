"""What agent-level tools reach through their `ToolContext`: home dir, sessions, memory, the
delegator. The agent offers an `AgentServices` to every call (`context.get(AgentServices)`); a
tool called outside an agent (e.g. `tooldeck call memory`) falls back to the defaults from the
environment, so memory and session search work on their own too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck.context import ToolContext
from tooldeck.home import tooldeck_home

if TYPE_CHECKING:
    from tooldeck.agent.builtins.delegate import Delegator
    from tooldeck.agent.builtins.memory import MemoryFiles
    from tooldeck.agent.sessions import SessionStore

__all__ = ["AgentServices", "services_of", "tooldeck_home"]


@dataclass
class AgentServices:
    home: Path
    memory: MemoryFiles
    store: SessionStore | None = None
    delegator: Delegator | None = None


def services_of(context: ToolContext | None) -> AgentServices | None:
    return context.get(AgentServices) if context is not None else None
