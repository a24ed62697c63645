"""ACP agents as tools: config `acp_agents:` (name -> command, args, env, description, ...).

Each agent becomes one tool named after its config key (toolset `acp` unless set, source kind
`acp`: the lowest priority when names collide). A call starts the agent over stdio with the
`agent-client-protocol` SDK, opens a session whose working directory is the workspace, sends
the prompt and returns the agent's answer (see `session.py`). The agent may read and write the
workspace's text files through tooldeck (`files.py`): confined, and checkpointed with the call. The agent's permission requests
go through tooldeck's approvals (`ToolContext.get(Approvals)`): fail closed when nobody can be
asked. The call's timeout cancels the session and kills the agent's process group.

An agent that cannot start is hidden by availability with the reason: its command is looked up
when the loadout is assembled, and a start that failed (exited at once, no session) keeps it
hidden for `RETRY_AFTER_S`, after which the next assembly offers it again.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooldeck._core.availability_types import AVAILABLE, Availability
from tooldeck._core.config import AcpAgentConfig, CoreConfig
from tooldeck._core.context import Approvals, ToolContext
from tooldeck._core.sources.acp.files import AgentFiles
from tooldeck._core.sources.base import Source, SourceListing
from tooldeck._core.tool import Resource, Tool
from tooldeck._core.workspace import Workspace
from tooldeck.errors import ToolError

# How long an agent that failed to start stays hidden before it is offered again.
RETRY_AFTER_S = 60.0

PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {
            "type": "string",
            "description": "The task for the agent, complete and self-contained: it sees nothing else.",
        }
    },
    "required": ["prompt"],
}


class AcpSource(Source):
    """The config's ACP agents, one tool each."""

    def __init__(self, config: CoreConfig, *, name: str = "acp") -> None:
        super().__init__(name, "acp")
        self._config = config
        self._agents = {n: AcpAgent(n, a, config) for n, a in config.acp_agents.items() if a.enabled}
        for agent in self._agents.values():
            agent.on_availability = lambda: self.changed("availability")

    def load(self) -> SourceListing:
        return SourceListing(tuple(agent.tool for agent in self._agents.values()))


class AcpAgent:
    """One configured agent: its tool, where its command is, and whether it last failed to start."""

    def __init__(self, name: str, settings: AcpAgentConfig, config: CoreConfig) -> None:
        self.name = name
        self.settings = settings
        self._base = config.resolve_path(".")
        self._failed: tuple[float, str] | None = None
        self._lock = threading.Lock()
        self.on_availability: Any = None
        description = settings.description or (
            f"Ask the ACP agent {name!r} to carry out a task in the workspace; returns its final answer."
        )
        self.tool = Tool(
            name=name,
            description=description,
            parameters=PARAMETERS,
            handler=self.call,
            toolset=settings.toolset,
            requires_modules=("acp",),
            check=self.check,
            open_world=True,
            read_only=False,
            requires_approval=settings.requires_approval,
            timeout=settings.timeout_s,
            # Calls to one agent take turns: each starts its own process in the same workspace.
            resource=Resource(key=f"acp:{name}"),
            owner=f"config acp_agents.{name}",
            source="acp",
            context_param="context",
        )

    def command_path(self) -> str | None:
        """The agent's program: a path (relative to the config file) or a name on PATH."""
        command = os.path.expanduser(self.settings.command)
        if os.sep in command:
            path = Path(command) if os.path.isabs(command) else self._base / command
            return str(path) if path.is_file() and os.access(path, os.X_OK) else None
        return shutil.which(command)

    def check(self) -> Availability:
        if self.command_path() is None:
            return Availability.no(f"ACP agent command {self.settings.command!r} not found or not executable")
        with self._lock:
            failed = self._failed
        if failed is not None:
            ago = time.monotonic() - failed[0]
            if ago < RETRY_AFTER_S:
                return Availability.no(
                    f"ACP agent failed to start {ago:.0f} s ago (offered again after {RETRY_AFTER_S:.0f} s): "
                    f"{failed[1]}"
                )
        return AVAILABLE

    async def call(self, arguments: Mapping[str, Any], context: ToolContext | None = None) -> str:
        from tooldeck._core.sources.acp.session import (
            AgentSpec,
            PermissionQuestion,
            StartupFailed,
            run_prompt,
        )

        prompt = arguments.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ToolError("prompt must be a non-empty string", type="invalid_arguments")
        command = self.command_path()
        if command is None:
            raise ToolError(f"ACP agent command {self.settings.command!r} not found", type="unavailable")
        workspace = context.workspace if context is not None and context.workspace else self._base
        spec = AgentSpec(
            self.name,
            command,
            tuple(self.settings.args),
            dict(self.settings.env),
            self.settings.startup_timeout_s,
        )

        async def consent(reason: str, rule: str, details: Mapping[str, Any]) -> bool:
            approvals = context.get(Approvals) if context is not None else None
            if approvals is None or context is None:
                return False
            return await approvals.ask(context, reason=reason, rule=rule, details=details)

        async def ask(question: PermissionQuestion) -> bool:
            return await consent(
                f"ACP agent {question.agent!r} asks permission ({question.kind}): {question.title}",
                f"acp:{question.agent}:{question.kind}:{question.title}",
                question.details,
            )

        files = AgentFiles(self._workspace(context, workspace), self.name, consent)
        try:
            answer = await run_prompt(spec, prompt, Path(workspace), ask, files)
        except StartupFailed as exc:
            self._startup_failed(str(exc).splitlines()[0])
            raise
        with self._lock:
            self._failed = None
        return answer

    @staticmethod
    def _workspace(context: ToolContext | None, root: str | os.PathLike[str]) -> Workspace:
        """The executor's workspace (its protected set, the home veiled), else one at `root`."""
        found = context.get(Workspace) if context is not None else None
        return found if found is not None else Workspace.of(root)

    def _startup_failed(self, reason: str) -> None:
        with self._lock:
            self._failed = (time.monotonic(), reason)
        if self.on_availability is not None:
            self.on_availability()


__all__ = ["AcpAgent", "AcpSource"]
