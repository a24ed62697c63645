"""What agent-level tools (L3) reach through their `ToolContext`: home dir, sessions, memory,
the delegator. The runtime puts an `AgentServices` into `context.extra[SERVICES_KEY]`; a tool
called outside an agent (e.g. `tooldeck call memory`) falls back to the defaults from the
environment, so memory and session search work on their own too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.context import ToolContext

if TYPE_CHECKING:
    from tooldeck.agent.builtins.delegate import Delegator
    from tooldeck.agent.builtins.memory import MemoryFiles
    from tooldeck.agent.sessions import SessionStore

SERVICES_KEY = "tooldeck.agent"
DEFAULT_HOME = "~/.tooldeck"


def tooldeck_home(configured: str | None = None, *, base_dir: str | None = None) -> Path:
    """The tooldeck home: config `home:`, else env `TOOLDECK_HOME`, else `~/.tooldeck`."""
    value = configured or os.environ.get("TOOLDECK_HOME") or DEFAULT_HOME
    path = Path(os.path.expanduser(value))
    if not path.is_absolute() and base_dir and configured:
        path = Path(base_dir) / path
    return path


@dataclass
class AgentServices:
    home: Path
    memory: MemoryFiles
    store: SessionStore | None = None
    delegator: Delegator | None = None


def services_of(context: ToolContext | None) -> AgentServices | None:
    if context is None:
        return None
    found: Any = context.extra.get(SERVICES_KEY) or context.state.get("_" + SERVICES_KEY)
    return found if isinstance(found, AgentServices) else None
