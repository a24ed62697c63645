"""`Deck`: the front door. A config, the tools of every source, and everything done with them.

    deck = Deck.load("tooldeck.yaml")             # or Deck(Config(...), tools=[...])
    deck.tools(dialect="anthropic")                # what the model is sent
    deck.explain("web_search")                     # why a tool is (not) visible
    await deck.call("read_file", {"path": "README.md"})
    agent = deck.agent(model)                      # the agent loop over this deck

A façade: what the config brings is worked out by `tooldeck._core.configured`, the sources kept
listed by `tooldeck._core.listing` (a slow one waited for only when needed), calls run in a
`Session`, and the satellites bring their own parts (`tooldeck.agent.for_deck`, `interop`).
Every call and agent turn uses the loadout as assembled at that moment.
"""

from __future__ import annotations

from collections.abc import Collection, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from tooldeck._config import Config
from tooldeck._core.assembly.explanation import Explanation
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.assembly.pipeline import Assembler
from tooldeck._core.config import CoreConfig, ExecutionConfig
from tooldeck._core.configured import (
    check_unique_names,
    config_middleware,
    config_sources,
    count_tokens,
    declarations,
    given,
)
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.execution.middleware import Middleware, Placed, placed_middleware
from tooldeck._core.listing import Listings
from tooldeck._core.prompts import Prompt
from tooldeck._core.registry import Registry
from tooldeck._core.resources import DeclaredResource
from tooldeck._core.sources.base import StaticSource, ToolSource
from tooldeck._core.tool import Tool

if TYPE_CHECKING:
    from tooldeck._core.checkpoints import Checkpoint
    from tooldeck._core.checkpoints.undo import UndoReport
    from tooldeck._core.execution.events import EventSink
    from tooldeck._core.execution.policy import Approver, Policy
    from tooldeck._core.execution.results import SpillStore
    from tooldeck._core.execution.types import ToolCall, ToolResult
    from tooldeck._core.session import Session
    from tooldeck._core.sources.mcp.loop import McpLoop
    from tooldeck.agent.for_deck import AgentOptions
    from tooldeck.agent.models.base import ModelClient
    from tooldeck.agent.runtime import Agent, LoadoutSource

T = TypeVar("T")


class Given(TypedDict, total=False):
    """What a deck is given besides its config (see `Deck`)."""

    tools: Iterable[Tool | object]
    sources: Iterable[ToolSource]
    builtins: bool
    middleware: Sequence[Middleware | Placed | Mapping[str, Any]]
    prompts: Iterable[Prompt]
    resources: Iterable[DeclaredResource]


class Deck:
    """A configured set of tools: what the model sees, why, and how calls run."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        tools: Iterable[Tool | object] = (),
        sources: Iterable[ToolSource] = (),
        builtins: bool = True,
        middleware: Sequence[Middleware | Placed | Mapping[str, Any]] = (),
        prompts: Iterable[Prompt] = (),
        resources: Iterable[DeclaredResource] = (),
    ) -> None:
        self.config = config if config is not None else Config()
        given_tools = _own_tools(tools)
        # What was given besides the config: kept for `with_config`.
        self._given = ([StaticSource(given_tools)] if given_tools else []) + list(sources)
        self._builtins = builtins
        self._given_middleware = placed_middleware(list(middleware))
        # Around every call: the given ones, then config `middleware:`, each where it was placed.
        self.middleware: tuple[Placed, ...] = (*self._given_middleware, *config_middleware(self.config))
        # What `tooldeck serve` offers besides tools and skills: the given ones, then config's.
        self._given_prompts = given(prompts, Prompt, "prompts", "@prompt")
        self._given_resources = given(resources, DeclaredResource, "resources", "@resource")
        self.prompts, self.resources = declarations(self.config, self._given_prompts, self._given_resources)
        library = _library(self.config) if builtins else []
        self.sources: list[ToolSource] = [
            *config_sources(self.config, library=library, convert=_foreign_tools),
            *self._given,
        ]
        check_unique_names(self.sources)
        self.registry = Registry()
        self.assembler = Assembler(self.registry, self.config, token_counter=count_tokens)
        self._spill: SpillStore | None = None
        self._services: dict[type, object] | None = None
        self._listings = Listings(self.sources, self.registry, self.assembler.invalidate)

    @classmethod
    def load(cls, path: str | Path | None = None, **given: Unpack[Given]) -> Deck:
        """Read the config file (default `./tooldeck.yaml` when present) and load every source;
        `given`: what `Deck(...)` takes besides the config."""
        from tooldeck._config import load_config

        return cls(load_config(path), **given)

    def with_config(self, config: Config) -> Deck:
        """A deck over the same tools and sources under another config (e.g. `config.with_section(...)`)."""
        return Deck(
            config,
            sources=self._given,
            builtins=self._builtins,
            middleware=self._given_middleware,
            prompts=self._given_prompts,
            resources=self._given_resources,
        )

    def loadout(
        self, platform: str | None = None, *, agent: bool = False, calling: Collection[str] | None = None
    ) -> Loadout:
        """The assembly for `platform` (default: config `platform`), as of now (cached while nothing changes).

        `agent=True` is an agent run's loadout: it keeps the tools only an agent run can act on
        (`clarify`, `present_files`, `delegate_task`), which calls made outside one do not get.
        It waits for sources still connecting (each MCP server at most its connect timeout);
        `calling` names the tools about to be called directly, so that only the sources that could
        change what these names are are waited for (see `tooldeck._core.listing`).
        """
        self._listings.settle(calling)
        return self.assembler.assemble(platform, agent=agent)

    def tools(
        self,
        dialect: str = "openai",
        *,
        platform: str | None = None,
        strict: bool | None = None,
        agent: bool = False,
    ) -> list[dict[str, Any]]:
        """The exposed tools exactly as a request in `dialect` carries them (a new list of read-only tools)."""
        from tooldeck._core.dialects import render_loadout

        strict = self.config.dialects.openai.strict if strict is None else strict
        loadout = self.loadout(platform, agent=agent)
        return render_loadout(loadout, dialect, strict=strict, profile=self.config.model.name)

    def explain(self, *names: str, platform: str | None = None, agent: bool = False) -> Explanation:
        """Every candidate's fate (or those named), with the config and source diagnostics."""
        loadout = self.loadout(platform, agent=agent)
        fates = loadout.fates()
        if names:
            wanted = set(names)
            fates = [f for f in fates if f.name in wanted]
        return Explanation(loadout.platform, tuple(fates), tuple(self.diagnostics(loadout)))

    def diagnostics(self, loadout: Loadout | None = None) -> list[Diagnostic]:
        """What the sources reported and what the assembly found, without repeats."""
        found = self._listings.diagnostics()
        if loadout is not None:
            found += loadout.diagnostics
        return list(dict.fromkeys(found))

    def invalidate(self) -> None:
        """Forget cached check answers: the next assembly checks availability again."""
        self.assembler.invalidate()

    def checkpoints(self, *, session_id: str | None = None) -> list[Checkpoint]:
        """The workspace's checkpoints, newest first (of one session with `session_id`)."""
        from tooldeck._core.checkpoints import store_of

        return store_of(self.config).checkpoints(session_id=session_id)

    def undo(self, checkpoint: int | None = None, *, force: bool = False) -> UndoReport:
        """Undo the last call that changed the workspace, or every one since `checkpoint`; a file
        changed since by someone else is a CheckpointConflict (nothing undone) unless `force`."""
        from tooldeck._core.checkpoints import undo_in

        return undo_in(self.config, checkpoint, force=force)

    def session(
        self,
        *,
        platform: str | None = None,
        approver: Approver | None = None,
        policy: Policy | None = None,
        events: EventSink | None = None,
        session_id: str | None = None,
        direct: bool = True,
        agent: bool = False,
        services: Mapping[type, object] | None = None,
        limits: ExecutionConfig | None = None,
        spill: SpillStore | None = None,
        view: LoadoutSource | None = None,
    ) -> Session:
        """A session over this deck: the one way calls are made (see `tooldeck._core.session`).

        `direct=True` (the default): the caller names the tool itself, so a deferred tool is called
        as if promoted; `direct=False` is a model's session (`not_promoted` until tool_search).
        `agent=True`: an agent run's loadout. `limits` replaces config `execution:`. `view`: a view
        of this deck to take the config and loadouts from (a batch item's, with its own home).
        """
        from tooldeck._core.session import Session

        def loadouts(calling: Collection[str] | None) -> Loadout:
            if view is not None:
                return view.loadout(platform, agent=agent)
            return self.loadout(platform, agent=agent, calling=calling)

        config = view.config if view is not None else self.config
        if spill is None and direct and session_id is None:
            spill = self._direct_spill()
        return Session(
            config,
            loadouts,
            session_id=session_id,
            approver=approver,
            policy=policy,
            events=events,
            middleware=self.middleware,
            services={**self._services_for(config), **(services or {})},
            direct=direct,
            spill=spill,
            limits=limits,
            # From synchronous code, calls run on the loop of the deck's MCP sessions when it has
            # some (no hand-off between threads), else as `Executor.execute_sync` runs them.
            run_sync=mcp.run if (mcp := self._mcp_loop()) is not None else None,
        )

    def _services_for(self, config: CoreConfig) -> dict[type, object]:
        """What a session under `config` is offered (the deck's own built once)."""
        from tooldeck.agent.for_deck import deck_services

        if config is not self.config:
            return deck_services(config)
        if self._services is None:
            self._services = deck_services(config)
        return self._services

    def _direct_spill(self) -> SpillStore:
        """One store of cut results for all direct calls (`read_result` finds earlier ones')."""
        from tooldeck._core.execution.results import SpillStore
        from tooldeck._utils.home import tooldeck_home

        if self._spill is None:
            home = tooldeck_home(self.config.home, base_dir=self.config.base_dir)
            self._spill = SpillStore(home / "spill")
        return self._spill

    async def call(
        self,
        name: str,
        arguments: str | Mapping[str, Any] | None = None,
        *,
        platform: str | None = None,
        approver: Approver | None = None,
        call_id: str = "call_1",
    ) -> ToolResult:
        """One call through the whole call path, as for a model's call (a one-shot session).

        Arguments: a dict or the raw JSON text a model sent. A tool that needs approval is refused
        unless an `approver` says yes (or `approvals.mode` is allow). A deferred tool is called
        as if `tool_search` had promoted it (the caller names it itself); a hidden one is refused.
        """
        from tooldeck._core.execution.types import ToolCall

        [result] = await self.call_batch(
            [ToolCall(call_id, name, arguments)], platform=platform, approver=approver
        )
        return result

    def call_sync(
        self,
        name: str,
        arguments: str | Mapping[str, Any] | None = None,
        *,
        platform: str | None = None,
        approver: Approver | None = None,
        call_id: str = "call_1",
    ) -> ToolResult:
        """`call` for synchronous code (with MCP servers, run on their loop, as `run` does)."""
        with self.session(platform=platform, approver=approver) as session:
            return session.call_sync(name, arguments, call_id=call_id)

    async def call_batch(
        self, calls: Sequence[ToolCall], *, platform: str | None = None, approver: Approver | None = None
    ) -> list[ToolResult]:
        """A batch as one model reply makes it: concurrent where safe, one result per call id, in
        order. Deferred tools are called directly, as in `call`."""
        if self._listings.pending:
            # Waiting for a source still connecting must not stall this event loop (it may be
            # the one the source connects on).
            import asyncio

            await asyncio.to_thread(self._listings.settle, [c.name for c in calls])
        async with self.session(platform=platform, approver=approver) as session:
            return await session.execute(calls)

    def call_batch_sync(
        self, calls: Sequence[ToolCall], *, platform: str | None = None, approver: Approver | None = None
    ) -> list[ToolResult]:
        """`call_batch` for synchronous code."""
        with self.session(platform=platform, approver=approver) as session:
            return session.execute_sync(calls)

    def run(self, coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
        """Run `coro` on the deck's event loop and return its result (from synchronous code).

        The deck's loop is the one its MCP sessions live on (one per process, in a daemon thread),
        so the MCP calls `coro` makes reach the servers with no hand-off between threads; blocking
        code in `coro` stalls them all. Exceptions of `coro` propagate; a `timeout` (seconds) or
        Ctrl-C cancels it (a timeout raises TimeoutError). From the deck's loop itself this
        raises RuntimeError: await there. Sources still connecting are waited for first.
        """
        from tooldeck._core.sources.mcp.loop import mcp_loop

        loop = self._mcp_loop() or mcp_loop()
        if not loop.in_loop:
            self._listings.settle(None)
        return loop.run(coro, timeout)

    def _mcp_loop(self) -> McpLoop | None:
        """The loop the deck's MCP sessions live on; None for a deck without MCP servers."""
        if not self.config.mcp_servers and not any(s.kind == "mcp" for s in self._given):
            return None  # nothing to look for: the MCP modules stay unimported
        from tooldeck._core.sources.mcp import loop_of

        return loop_of(self.sources)

    def agent(self, model: ModelClient | str | None = None, **options: Unpack[AgentOptions]) -> Agent:
        """The agent loop over this deck. `model` is a client, a model name, or None for config
        `model:`; `options`: `platform`, `approver`, `policy`, `events`, `store`, `max_iterations`,
        `delegate_model` (sub-agents run on it) and `delegate_vision` (whether it reads images)."""
        from tooldeck.agent.for_deck import deck_agent

        return deck_agent(self, model, **options)

    def langchain_tools(self) -> list[Any]:
        """The exposed tools as LangChain `BaseTool`s (`tooldeck.interop.langchain_tools`)."""
        from tooldeck.interop import langchain_tools

        return list(langchain_tools(self))

    def pydantic_ai_toolset(self) -> Any:
        """The loadout as a pydantic-ai toolset (`tooldeck.interop.pydantic_ai_toolset`)."""
        from tooldeck.interop import pydantic_ai_toolset

        return pydantic_ai_toolset(self)

    def openai_agents_tools(self) -> list[Any]:
        """The exposed tools as OpenAI Agents SDK `FunctionTool`s (`tooldeck.interop.openai_agents_tools`)."""
        from tooldeck.interop import openai_agents_tools

        return list(openai_agents_tools(self))

    def close(self) -> None:
        """Close every source (MCP connections, child processes), all at once."""
        self._spill = None
        self._listings.close()

    def __enter__(self) -> Deck:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _foreign_tools(value: object, where: str) -> list[Tool] | None:
    """A `tools:` entry's value from another framework as tooldeck Tools; None for anything else."""
    from tooldeck.interop.detect import foreign_tools

    return foreign_tools(value, where)


def _own_tools(given: Iterable[Tool | object]) -> list[Any]:  # other frameworks' tools made ours
    tools = list(given)
    if all(isinstance(t, Tool) for t in tools):
        return tools
    from tooldeck.interop.detect import own_tools

    return own_tools(tools)


def _library(config: Config) -> list[ToolSource]:
    """tooldeck's tool library: its manifest, and the tools built from the config."""
    from tooldeck._core.sources.builtin import BuiltinSource
    from tooldeck.tools.library import LibrarySource

    return [BuiltinSource(), LibrarySource(config)]


__all__ = ["Deck"]
