"""What agent-level tools reach through their `ToolContext`: home dir, sessions, memory, the
delegator. The agent offers an `AgentServices` to every call (`context.get(AgentServices)`).
A call made outside an agent (`deck.call`, `tooldeck call`, `serve`) is offered the ones the
deck builds from its config when it makes the session (`for_config`) - the configured home,
never the default one - so memory and session search work there too, on the same files an
agent of that config uses. No tool reads the config at call time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck._utils.home import tooldeck_home
from tooldeck.agent.config import AgentConfig
from tooldeck.core import CoreConfig, ToolContext
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    from tooldeck.agent.builtins.delegate import Delegator
    from tooldeck.agent.builtins.memory import MemoryFiles
    from tooldeck.agent.sessions import SessionStore

__all__ = [
    "AgentServices",
    "call_services",
    "for_config",
    "memory_files",
    "services_of",
    "sessions_db",
    "tooldeck_home",
]


@dataclass
class AgentServices:
    home: Path
    memory: MemoryFiles
    store: SessionStore | None = None
    delegator: Delegator | None = None
    # Where the store of a call outside an agent run is (opened by the tool that needs it).
    sessions_db: Path | None = None


def services_of(context: ToolContext | None) -> AgentServices | None:
    return context.get(AgentServices) if context is not None else None


def sessions_db(config: CoreConfig) -> Path:
    """The session database of `config`: `agent.sessions_db`, else `state.db` in the home."""
    db = config.section(AgentConfig).sessions_db
    if db:
        return config.resolve_path(db)
    return tooldeck_home(config.home, base_dir=config.base_dir) / "state.db"


def memory_files(config: CoreConfig) -> MemoryFiles:
    """MEMORY.md and USER.md of `config`'s home, with its size caps."""
    from tooldeck.agent.builtins.memory import MemoryFiles, MemoryLimits

    agent = config.section(AgentConfig)
    limits = MemoryLimits(agent.memory_max_chars, agent.user_max_chars)
    return MemoryFiles(tooldeck_home(config.home, base_dir=config.base_dir), limits=limits)


def for_config(config: CoreConfig) -> AgentServices:
    """What a call outside an agent run is offered: the home, memory files and session database
    of `config` (built when the session is made, not at call time)."""
    home = tooldeck_home(config.home, base_dir=config.base_dir)
    return AgentServices(home=home, memory=memory_files(config), sessions_db=sessions_db(config))


def call_services(context: ToolContext | None, tool: str) -> AgentServices:
    """The services the call was offered: the agent's, or for a call outside an agent run, the
    deck's (`for_config`). A context without them is a handler called by hand, which gets an
    error rather than the files of whatever home the environment points at."""
    offered = services_of(context)
    if offered is None:
        raise ToolError(
            f"{tool} needs the agent services of the call it serves (its home, memory and sessions); "
            "call it through a deck (deck.call, tooldeck call, serve) or an agent, not by calling its handler"
        )
    return offered
