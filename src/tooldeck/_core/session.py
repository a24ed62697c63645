"""`Session`: one conversation's or one run's state, and the one place executors are built.

    with deck.session() as session:              # or: async with deck.session() as session
        session.call_sync("read_file", {"path": "README.md"})
        await session.call("terminal", {"command": "ls"})

Whichever way a call is made - `deck.call`, `tooldeck call`, an agent's turn, a `batch` item,
an MCP client of `tooldeck serve`, the nested calls of `execute_code` - it runs in a session:
the same config, workspace and home, the approver and the grants it gave, the run state
(promotions, todo, artifacts), the store of cut results, the services offered to tools, and
the middleware chain. `deck.call` is a one-shot session.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._core.config import CoreConfig, ExecutionConfig
from tooldeck._core.control_plane import ControlPlane
from tooldeck._core.execution.events import EventSink
from tooldeck._core.execution.middleware import Middleware, Placed
from tooldeck._core.execution.policy import Approver, Grants, Policy
from tooldeck._core.execution.results import SpillStore
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck._core.run_state import RunState
from tooldeck._core.workspace import Workspace
from tooldeck._utils.home import tooldeck_home

if TYPE_CHECKING:
    from tooldeck._core.assembly.loadout import Loadout
    from tooldeck._core.execution.executor import Executor
    from tooldeck._core.execution.runner import CancelToken

T = TypeVar("T")
# The loadout of the moment; `calling` names the only tools about to be called (so sources that
# cannot offer them are not waited for), None for all.
Loadouts = Callable[[Collection[str] | None], "Loadout"]
SyncRunner = Callable[[Coroutine[Any, Any, Any]], Any]


class Session:
    """See the module docstring. Made by `Deck.session` (and the agent, serve and batch through it)."""

    def __init__(
        self,
        config: CoreConfig,
        loadouts: Loadouts,
        *,
        session_id: str | None = None,
        approver: Approver | None = None,
        policy: Policy | None = None,
        events: EventSink | None = None,
        middleware: Sequence[Middleware | Placed | Mapping[str, Any]] = (),
        services: Mapping[type, object] | None = None,
        direct: bool = False,
        spill: SpillStore | None = None,
        limits: ExecutionConfig | None = None,
        state: RunState | None = None,
        run_sync: SyncRunner | None = None,
    ) -> None:
        self.config = config
        self.session_id = session_id
        self.approver = approver
        self.policy = policy
        self.events = events
        self.middleware = tuple(middleware)
        self.services: dict[type, object] = dict(services or {})
        # A caller naming its tools itself (a person, a program): deferred tools are called as if
        # promoted. A model's session answers `not_promoted` until tool_search loaded them.
        self.direct = direct
        self.limits = limits or config.execution
        self.home: Path = tooldeck_home(config.home, base_dir=config.base_dir)
        self._workspace: Workspace | None = None
        self.grants = Grants()
        self.spill = spill or SpillStore(self.home / "spill", session=session_id)
        # The run state the session's tools share (promotions, todo, artifacts).
        self.state: RunState = state if state is not None else RunState()
        self._loadouts = loadouts
        self._run_sync = run_sync
        self.closed = False

    @property
    def workspace(self) -> Workspace:
        """The workspace the session's tools work in, with its protected and hidden sets."""
        if self._workspace is None:
            self._workspace = self._workspace_of(self.loadout())
        return self._workspace

    def _workspace_of(self, loadout: Loadout) -> Workspace:
        if self._workspace is None:
            config = self.config
            # Computed once per loadout assembly: a one-shot session per call costs nothing more.
            plane = loadout.cached_render(("tooldeck.ControlPlane",), lambda: ControlPlane.of(config))
            self._workspace = Workspace(config.workspace, plane=plane)
        return self._workspace

    # -- executors -------------------------------------------------------------------------

    def loadout(self, calling: Collection[str] | None = None) -> Loadout:
        """The loadout as assembled now (`calling`: see `Deck.loadout`)."""
        return self._loadouts(calling)

    def executor(
        self,
        loadout: Loadout | None = None,
        *,
        approver: Approver | None = None,
        services: Mapping[type, object] | None = None,
        calling: Collection[str] | None = None,
    ) -> Executor:
        """An executor over `loadout` (default: the current one) in this session; `approver`
        and `services` stand in for the session's for this executor only (a `serve` request
        asks its own client)."""
        from tooldeck._core.execution.executor import Executor, every_deferred

        if self.closed:
            raise RuntimeError("this session is closed")
        loadout = loadout if loadout is not None else self.loadout(calling)
        if loadout.config.workspace != self.config.workspace:
            raise ValueError(
                "the loadout was assembled under another workspace than this session's "
                f"({loadout.config.workspace} vs {self.config.workspace})"
            )
        offered = {**self.services, **(services or {})} if services else self.services
        return Executor(
            loadout,
            policy=self.policy,
            approver=approver if approver is not None else self.approver,
            events=self.events,
            session_id=self.session_id,
            spill=self.spill,
            grants=self.grants,
            services=offered,
            promoted=every_deferred(loadout) if self.direct else None,
            middleware=self.middleware,
            workspace=self._workspace_of(loadout),
            home=self.home,
            limits=self.limits,
        )

    # -- calls -----------------------------------------------------------------------------

    async def execute(
        self,
        calls: Sequence[ToolCall],
        *,
        loadout: Loadout | None = None,
        state: RunState | None = None,
        cancel: CancelToken | None = None,
        approver: Approver | None = None,
        services: Mapping[type, object] | None = None,
    ) -> list[ToolResult]:
        """A batch as one model reply makes it: concurrent where safe, one result per call id,
        in order. `state`: the run state to use (default: the session's)."""
        executor = self.executor(
            loadout, approver=approver, services=services, calling=[c.name for c in calls]
        )
        return await executor.execute(calls, state=self.state if state is None else state, cancel=cancel)

    async def call(
        self, name: str, arguments: str | Mapping[str, Any] | None = None, *, call_id: str = "call_1"
    ) -> ToolResult:
        """One call through the whole execution path (arguments: a dict or raw JSON text)."""
        [result] = await self.execute([ToolCall(call_id, name, arguments)])
        return result

    def call_sync(
        self, name: str, arguments: str | Mapping[str, Any] | None = None, *, call_id: str = "call_1"
    ) -> ToolResult:
        """`call` for synchronous code."""
        [result] = self.execute_sync([ToolCall(call_id, name, arguments)])
        return result

    def execute_sync(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """`execute` for synchronous code (on the deck's MCP loop when it has one)."""
        executor = self.executor(calling=[c.name for c in calls])
        if self._run_sync is None:
            return executor.execute_sync(calls, state=self.state)
        out: list[ToolResult] = self._run_sync(executor.execute(calls, state=self.state))
        return out

    # -- life ------------------------------------------------------------------------------

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Loadouts", "Session"]
