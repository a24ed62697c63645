"""`Deck`: the front door. A config, the tools of every source, and everything done with them.

    deck = Deck.load("tooldeck.yaml")             # or Deck(Config(...), tools=[...])
    deck.tools(dialect="anthropic")                # what the model is sent
    deck.explain("web_search")                     # why a tool is (not) visible
    await deck.call("read_file", {"path": "README.md"})
    agent = deck.agent(model)                      # the agent loop over this deck

The layers behind it (sources, registry, assembly, dialects, execution, agent) stay importable
for advanced use; a user does not need them. The deck fills its registry from its sources and
re-lists a source when it announces a change; every call and every agent turn uses the loadout
as assembled at that moment, under this deck's config.

A source that is slow to list (an MCP server connecting) is not waited for when the deck is
made: the first assembly waits for it (each server at most its connect timeout, all at the same
time), and a direct call waits only for the sources that could offer the tool it names.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Collection, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from tooldeck._core.assembly.loadout import Fate, Loadout
from tooldeck._core.assembly.pipeline import Assembler
from tooldeck._core.config import Config, ExecutionConfig
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.execution.middleware import Middleware, check_middleware
from tooldeck._core.prompts import Prompt
from tooldeck._core.registry import Registry
from tooldeck._core.resources import DeclaredResource
from tooldeck._core.sources.base import ChangeKind, SlowSource, StaticSource, ToolSource
from tooldeck._core.tool import SOURCE_PRIORITY, Tool
from tooldeck.errors import ConfigError, ToolConflictError

if TYPE_CHECKING:
    from tooldeck._core.checkpoints import Checkpoint
    from tooldeck._core.checkpoints.undo import UndoReport
    from tooldeck._core.execution.events import EventSink
    from tooldeck._core.execution.policy import Approver, Policy
    from tooldeck._core.execution.results import SpillStore
    from tooldeck._core.execution.types import ToolCall, ToolResult
    from tooldeck._core.session import Session
    from tooldeck._core.sources.mcp.loop import McpLoop
    from tooldeck.agent.events import EventSink as AgentEventSink
    from tooldeck.agent.models.base import ModelClient
    from tooldeck.agent.runtime import Agent, LoadoutSource
    from tooldeck.agent.sessions import SessionStore

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Explanation:
    """Every candidate tool's fate, plus what the sources and the assembly had to say."""

    platform: str
    fates: tuple[Fate, ...]
    diagnostics: tuple[Diagnostic, ...]

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "name": f.name,
                "toolset": f.tool.toolset,
                "source": f.tool.source,
                "status": f.status,
                "gate": f.gate,
                "reason": f.reason,
            }
            for f in self.fates
        ]


class Deck:
    """A configured set of tools: what the model sees, why, and how calls run."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        tools: Iterable[Tool | object] = (),
        sources: Iterable[ToolSource] = (),
        builtins: bool = True,
        middleware: Sequence[Middleware] = (),
        prompts: Iterable[Prompt] = (),
        resources: Iterable[DeclaredResource] = (),
    ) -> None:
        self.config = config if config is not None else Config()
        tools = _own_tools(tools)
        # What was given besides the config: kept for `with_config`.
        self._given = ([StaticSource(tools)] if tools else []) + list(sources)
        self._builtins = builtins
        self._given_middleware = check_middleware(list(middleware))
        # Around every call of every session: the given ones outermost, then config `middleware:`.
        self.middleware: tuple[Middleware, ...] = (
            *self._given_middleware,
            *_config_middleware(self.config),
        )
        # What `tooldeck serve` offers besides the tools and the skills: the given ones, then config
        # `prompts:` / `resources:`. Nothing else reads them (`tools` and `explain` show tools).
        self._given_prompts = _checked(prompts, Prompt, "prompts", "@prompt")
        self._given_resources = _checked(resources, DeclaredResource, "resources", "@resource")
        configured_prompts, configured_resources = _config_declarations(self.config)
        self.prompts: tuple[Prompt, ...] = _unique_prompts([*self._given_prompts, *configured_prompts])
        self.resources: tuple[DeclaredResource, ...] = _unique_resources(
            [*self._given_resources, *configured_resources]
        )
        self.sources: list[ToolSource] = [*_config_sources(self.config, builtins=builtins), *self._given]
        _check_unique_names(self.sources)
        self.registry = Registry()
        self.assembler = Assembler(self.registry, self.config, token_counter=_count_tokens)
        self._notes: dict[str, tuple[Diagnostic, ...]] = {}
        self._spill: SpillStore | None = None
        self._services: dict[type, object] | None = None
        # Sources not listed yet: slow ones still connecting, listed when something needs them.
        self._pending: list[ToolSource] = []
        self._pending_lock = threading.Lock()
        for source in self.sources:
            if isinstance(source, SlowSource):
                # Subscribed first, so a listing that arrives meanwhile is taken in at once.
                source.subscribe(self._on_change)
                if source.listed():
                    self._sync(source)
                else:
                    self._pending.append(source)
                continue
            self._sync(source)
            source.subscribe(self._on_change)

    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        *,
        tools: Iterable[Tool | object] = (),
        sources: Iterable[ToolSource] = (),
        builtins: bool = True,
        middleware: Sequence[Middleware] = (),
        prompts: Iterable[Prompt] = (),
        resources: Iterable[DeclaredResource] = (),
    ) -> Deck:
        """Read the config file (default `./tooldeck.yaml` when present) and load every source."""
        from tooldeck._core.config_load import load_config

        return cls(
            load_config(path),
            tools=tools,
            sources=sources,
            builtins=builtins,
            middleware=middleware,
            prompts=prompts,
            resources=resources,
        )

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

    # -- what the model sees ---------------------------------------------------------------

    def loadout(
        self, platform: str | None = None, *, agent: bool = False, calling: Collection[str] | None = None
    ) -> Loadout:
        """The assembly for `platform` (default: config `platform`), as of now (cached while nothing changes).

        `agent=True` is an agent run's loadout: it keeps the tools only an agent run can act on
        (`clarify`, `present_files`, `delegate_task`), which calls made outside one do not get.

        It waits for sources still connecting (each MCP server at most its connect timeout).
        `calling` names the tools about to be called directly, for a loadout good for those calls
        only: a source still connecting is then waited for only if it could change what one of
        these names is (an MCP server offers only `mcp__<server>__...` names, and never beats a
        higher-priority source that offers the name). A tool that uses the rest of the loadout
        (`calls_tools`, as `execute_code` whose programs call the other tools, or
        `loads_deferred`, as `tool_search`) needs every source, so calling it waits for them all.
        """
        self._settle(calling)
        return self.assembler.assemble(platform, agent=agent)

    def _settle(self, calling: Collection[str] | None) -> None:
        """List the pending sources that `calling` needs (all of them for None)."""
        with self._pending_lock:
            pending = list(self._pending)
        if not pending:
            return
        if calling is not None and any(_reads_loadout(self.registry.get(n)) for n in calling):
            calling = None
        # They have all been connecting since the deck was made: waiting for each in turn
        # takes as long as the slowest.
        for source in pending:
            if calling is None or any(self._may_change(source, n) for n in calling):
                self._sync(source)
                with self._pending_lock:
                    if source in self._pending and isinstance(source, SlowSource) and source.listed():
                        self._pending.remove(source)

    def _may_change(self, source: ToolSource, name: str) -> bool:
        """Whether listing `source` could change which tool `name` is."""
        if not (isinstance(source, SlowSource) and source.may_offer(name)):
            return False
        found = self.registry.get(name)
        return found is None or SOURCE_PRIORITY[found.source] >= SOURCE_PRIORITY[source.kind]

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
        found = [d for notes in self._notes.values() for d in notes]
        if loadout is not None:
            found += loadout.diagnostics
        return list(dict.fromkeys(found))

    def invalidate(self) -> None:
        """Forget cached check answers: the next assembly checks availability again."""
        self.assembler.invalidate()

    # -- checkpoints -----------------------------------------------------------------------

    def checkpoints(self, *, session_id: str | None = None) -> list[Checkpoint]:
        """The workspace's checkpoints, newest first: one per call that changed it (of one
        session when `session_id` is given)."""
        from tooldeck._core.checkpoints import store_of

        return store_of(self.config).checkpoints(session_id=session_id)

    def undo(self, checkpoint: int | None = None, *, force: bool = False) -> UndoReport:
        """Undo the last call that changed the workspace, or (`checkpoint`) put back the state
        before that checkpoint, undoing it and every later one. Raises CheckpointConflict, and
        changes nothing, when a file was changed since by someone else, unless `force`."""
        from tooldeck._core.checkpoints import undo_in

        return undo_in(self.config, checkpoint, force=force)

    # -- calls -----------------------------------------------------------------------------

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

        `direct=True` (the default) is for calls whose caller names the tool itself (a person, a
        program): a deferred tool is called as if `tool_search` had promoted it. `direct=False`
        is a model's session: an unpromoted deferred tool is a `not_promoted` error. `agent=True`
        uses an agent run's loadout (with `clarify`, `present_files`, `delegate_task`).
        `limits` replaces config `execution:` for this session (e.g. a shorter timeout).
        `view`: a view of this deck to take the config and loadouts from instead (a batch
        item's, with its own workspace and home).
        """
        from tooldeck._core.session import Session

        def loadouts(calling: Collection[str] | None) -> Loadout:
            if view is not None:
                return view.loadout(platform, agent=agent)
            return self.loadout(platform, agent=agent, calling=calling)

        config = view.config if view is not None else self.config
        from tooldeck import tracing

        # `execute_tool` spans around everything else, when the application traces.
        middleware = (tracing.TracingMiddleware(), *self.middleware) if tracing.enabled() else self.middleware

        if spill is None and direct and session_id is None:
            spill = self._direct_spill()
        return Session(
            config,
            loadouts,
            session_id=session_id,
            approver=approver,
            policy=policy,
            events=events,
            middleware=middleware,
            services={**self._services_for(config), **(services or {})},
            direct=direct,
            spill=spill,
            limits=limits,
            # From synchronous code, calls run on the loop of the deck's MCP sessions when it has
            # some (no hand-off between threads), else as `Executor.execute_sync` runs them.
            run_sync=mcp.run if (mcp := self._mcp_loop()) is not None else None,
        )

    def _services_for(self, config: Config) -> dict[type, object]:
        """The services a session under `config` is offered; the deck's own config's are built
        once (a one-shot session per `deck.call` must not build them again)."""
        if config is not self.config:
            return _deck_services(config)
        if self._services is None:
            self._services = _deck_services(config)
        return self._services

    def _direct_spill(self) -> SpillStore:
        """One store of cut results for all of this deck's direct calls, so `read_result` in a
        later `call` finds what an earlier one kept; removed with the deck."""
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
        """One call through the whole execution path: parsing, validation, gates, approvals,
        timeouts and result shaping, as for a model's call (a one-shot session).

        Arguments may be a dict or the raw JSON text a model sent. Tools that need approval are
        refused unless an `approver` says yes (or `approvals.mode` is allow). The caller names
        the tool itself, so a deferred tool is called directly, as if `tool_search` had
        promoted it (the agent's model still has to call `tool_search` first); a hidden tool
        stays refused.
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
        if self._pending:
            # Waiting for a source still connecting must not stall this event loop (it may be
            # the one the source connects on).
            import asyncio

            await asyncio.to_thread(self._settle, _names(calls))
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

        The deck's loop is the one its MCP sessions live on (one per process, in a daemon
        thread, started on first use), so the MCP calls `coro` makes (`await deck.call(...)`,
        an agent's turns) reach the servers with no hand-off between threads: async code from
        another loop pays two such hand-offs per MCP call. Everything on this loop shares it
        with the MCP sessions: blocking code in `coro` stalls them all, and decks with MCP
        servers are to be built and closed outside it (they wait for work done on this loop).

        Exceptions of `coro` propagate. A `timeout` (seconds) that passes, or Ctrl-C, cancels
        `coro` and waits for it to stop; a timeout raises TimeoutError. Calling this from the
        deck's loop itself (from code already run by it) raises RuntimeError: await there.
        Sources still connecting are waited for first (here, not on the loop, where they connect):
        `coro` may assemble loadouts.
        """
        from tooldeck._core.sources.mcp.loop import mcp_loop

        loop = self._mcp_loop() or mcp_loop()
        if not loop.in_loop:
            self._settle(None)
        return loop.run(coro, timeout)

    def _mcp_loop(self) -> McpLoop | None:
        """The loop the deck's MCP sessions live on; None for a deck without MCP servers."""
        if not self.config.mcp_servers and not any(s.kind == "mcp" for s in self._given):
            return None  # nothing to look for: the MCP modules stay unimported
        from tooldeck._core.sources.mcp.source import McpSource

        return next((s.loop for s in self.sources if isinstance(s, McpSource)), None)

    # -- the agent -------------------------------------------------------------------------

    def agent(
        self,
        model: ModelClient | str | None = None,
        *,
        platform: str | None = None,
        approver: Approver | None = None,
        policy: Policy | None = None,
        events: AgentEventSink | None = None,
        store: SessionStore | Literal[False] | None = None,
        max_iterations: int | None = None,
        delegate_model: ModelClient | None = None,
        delegate_vision: bool = False,
    ) -> Agent:
        """The agent loop over this deck. `model` is a client, a model name, or None for config `model:`.
        Sub-agents run on `delegate_model` when given (`delegate_vision`: whether it reads images)."""
        from tooldeck.agent.runtime import Agent

        if model is None or isinstance(model, str):
            from tooldeck.agent.models.factory import make_model, resolve_model_settings

            settings = resolve_model_settings(
                self.config.model, model=model, strict_tools=self.config.dialects.openai.strict
            )
            model = make_model(settings)
        return Agent(
            self,
            model,
            platform=platform,
            store=store,
            policy=policy,
            approver=approver,
            events=events,
            delegate_model=delegate_model,
            delegate_vision=delegate_vision,
            max_iterations=max_iterations,
        )

    # -- other frameworks ------------------------------------------------------------------

    def langchain_tools(self) -> list[Any]:
        """The exposed tools as LangChain `BaseTool`s, each call through this deck
        (`tooldeck.interop.langchain_tools`)."""
        from tooldeck.interop import langchain_tools

        return list(langchain_tools(self))

    def pydantic_ai_toolset(self) -> Any:
        """The loadout as a pydantic-ai toolset, re-assembled at each run step, each call through
        this deck (`tooldeck.interop.pydantic_ai_toolset`)."""
        from tooldeck.interop import pydantic_ai_toolset

        return pydantic_ai_toolset(self)

    def openai_agents_tools(self) -> list[Any]:
        """The exposed tools as OpenAI Agents SDK `FunctionTool`s, each call through this deck
        (`tooldeck.interop.openai_agents_tools`)."""
        from tooldeck.interop import openai_agents_tools

        return list(openai_agents_tools(self))

    # -- sources ---------------------------------------------------------------------------

    def _sync(self, source: ToolSource) -> None:
        listing = source.list_tools()
        tools = [t if t.source == source.kind else t.relabeled(source=source.kind) for t in listing.tools]
        try:
            self.registry.sync(source.name, tools)
        except ToolConflictError as exc:
            raise ConfigError(f"source {source.name!r}: {exc}") from None
        self._notes[source.name] = listing.diagnostics

    def _on_change(self, source: ToolSource, change: ChangeKind) -> None:
        if change == "tools":
            self._sync(source)
        self.assembler.invalidate()

    def close(self) -> None:
        """Close every source (MCP connections, child processes), all at once: each may take a
        moment. Results kept for `read_result` by direct calls go when the last executor using
        them does."""
        self._spill = None
        if len(self.sources) < 2:
            for source in self.sources:
                source.close()
            return
        import threading

        closers = [
            threading.Thread(target=s.close, name=f"close-{s.name}", daemon=True) for s in self.sources
        ]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()

    def __enter__(self) -> Deck:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _foreign_tools(value: object, where: str) -> list[Tool] | None:
    """A LangChain, pydantic-ai or OpenAI Agents SDK tool as tooldeck Tools; None for anything
    else (told from the object's classes: no framework is imported here)."""
    if isinstance(value, Tool):
        return None
    from tooldeck.interop.detect import foreign_tools

    return foreign_tools(value, where)


def _own_tools(given: Iterable[Tool | object]) -> list[Tool]:
    """`Deck(tools=...)` with other frameworks' tools made tooldeck Tools."""
    out: list[Any] = []
    for index, value in enumerate(given):
        found = _foreign_tools(value, f"Deck(tools=...)[{index}]")
        if found is None:
            out.append(value)  # a Tool, or what the registry will refuse with its own words
        else:
            out.extend(found)
    return out


def _config_middleware(config: Config) -> list[Middleware]:
    """The middleware config `middleware:` names: instances, or classes and factories called
    with no arguments; a ConfigError names the entry that is not one."""
    if not config.middleware:
        return []
    from tooldeck._core.sources.config_entries import resolve_use

    if config.base_dir and config.base_dir not in sys.path:
        sys.path.append(config.base_dir)
    out: list[Middleware] = []
    for index, entry in enumerate(config.middleware):
        where = f"middleware[{index}].use"
        if ":" not in entry.use:
            raise ConfigError(f"{entry.use!r} must be 'package.module:attribute'", path=where)
        value = resolve_use(entry.use, where=where)
        if getattr(value, "on_call", None) is None or isinstance(value, type):
            if not callable(value):
                raise ConfigError(f"{entry.use} is not a middleware (no on_call method)", path=where)
            try:
                value = value()
            except Exception as exc:  # boundary: a user factory may raise anything
                raise ConfigError(
                    f"{entry.use} is not a middleware (it has no on_call), and calling it with no "
                    f"arguments to make one failed: {type(exc).__name__}: {exc}",
                    path=where,
                ) from None
        try:
            [checked] = check_middleware([value], where)
        except TypeError as exc:
            raise ConfigError(str(exc), path=where) from None
        out.append(checked)
    return out


def _config_declarations(config: Config) -> tuple[list[Prompt], list[DeclaredResource]]:
    """What config `prompts:` and `resources:` name (a ConfigError names an entry that is wrong)."""
    if not (config.prompts or config.resources):
        return [], []
    from tooldeck._core.sources.config_entries import config_prompts, config_resources

    return config_prompts(config), config_resources(config)


D = TypeVar("D", Prompt, DeclaredResource)


def _checked(given: Iterable[object], kind: type[D], key: str, decorator: str) -> tuple[D, ...]:
    out: list[D] = []
    for i, value in enumerate(given):
        if not isinstance(value, kind):
            raise TypeError(
                f"Deck({key}=...)[{i}] is a {type(value).__name__}, not a {decorator} declaration"
            )
        out.append(value)
    return tuple(out)


def _unique_prompts(prompts: list[Prompt]) -> tuple[Prompt, ...]:
    """The prompts; a ToolConflictError when two declare one name (a skill of it is overridden
    instead, see `tooldeck.serve`)."""
    seen: dict[str, Prompt] = {}
    for found in prompts:
        first = seen.setdefault(found.name, found)
        if first is not found:
            raise ToolConflictError(
                f"prompt {found.name!r} is declared twice: by {first.owner} and by {found.owner}",
                name=found.name,
                owners=(first.owner, found.owner),
            )
    return tuple(prompts)


def _unique_resources(resources: list[DeclaredResource]) -> tuple[DeclaredResource, ...]:
    """The resources; a ToolConflictError when two declare one URI or URI template."""
    seen: dict[str, DeclaredResource] = {}
    for found in resources:
        first = seen.setdefault(found.uri, found)
        if first is not found:
            raise ToolConflictError(
                f"resource {found.uri!r} is declared twice: by {first.owner} and by {found.owner}",
                name=found.uri,
                owners=(first.owner, found.owner),
            )
    return tuple(resources)


def _config_sources(config: Config, *, builtins: bool) -> list[ToolSource]:
    """The sources the config names, in order: built-ins, `discover:`, plugins, `tools:` entries, MCP
    servers, ACP agents."""
    from tooldeck._core.sources.config_entries import ConfigEntrySource
    from tooldeck._core.sources.discovery import PackageSource
    from tooldeck._core.sources.entry_points import PluginSource

    # Modules next to the config file are importable by `use:` and `discover:`; after the
    # installed ones, so a file a tool writes there (an `openai.py`) cannot shadow a package
    # tooldeck imports later.
    if config.base_dir and config.base_dir not in sys.path:
        sys.path.append(config.base_dir)
    out: list[ToolSource] = []
    if builtins:
        from tooldeck._core.sources.builtin import BuiltinSource
        from tooldeck.tools.library import LibrarySource

        # tooldeck's tool library, listed from its manifest: its modules load when a tool is used.
        out.append(BuiltinSource())
        # The built-in tools that depend on the config (web, browser, vision, skills).
        out.append(LibrarySource(config))
    if config.discover:
        out.append(PackageSource(list(config.discover), name="discover", kind="user"))
    if config.plugins.enabled:
        # Plugins are installed distributions: a `*.dist-info` next to the config (in the
        # workspace, where tools write) is not one.
        skip = frozenset({os.path.realpath(config.base_dir)} if config.base_dir else ())
        out.append(PluginSource(disabled=frozenset(config.plugins.disabled), skip=skip))
    if config.tools:
        out.append(ConfigEntrySource(list(config.tools), convert=_foreign_tools))
    if config.mcp_servers:
        from tooldeck._core.sources.mcp import mcp_sources

        out.extend(mcp_sources(config))
    if config.acp_agents:
        from tooldeck._core.sources.acp import AcpSource

        out.append(AcpSource(config))
    if config.tool_search.enabled:
        # Part of the deferral machinery, not of the tool library: present even without built-ins.
        from tooldeck._core.disclosure.search_tool import tool_search

        out.append(StaticSource([tool_search], name="tool_search", kind="builtin"))
    return out


def _count_tokens(tools: Sequence[Tool], descriptions: Mapping[str, str], config: Config) -> dict[str, int]:
    """Tokens of each tool as config `model:` receives it (for tool_search.max_exposed_tokens)."""
    from tooldeck._core.dialects import token_costs

    view = Loadout(
        platform=config.platform,
        exposed=tuple(tools),
        deferred=(),
        hidden=(),
        descriptions=descriptions,
        reasons={},
        config=config,
    )
    return token_costs(
        view, config.model.provider, strict=config.dialects.openai.strict, profile=config.model.name
    )


def _deck_services(config: Config) -> dict[type, object]:
    """What calls made through a deck (not an agent) are offered: the agent services of the
    config's home (memory, session search), how tool_search renders its results, and a vision
    service built from config `model:` the first time a tool asks a model about an image."""
    from tooldeck._core.disclosure.rendering import ToolRendering
    from tooldeck.agent.services import AgentServices, for_config
    from tooldeck.tools.vision import ImagePart, VisionService

    async def ask(image: ImagePart, question: str) -> str:
        from tooldeck.agent.vision import service_from_config
        from tooldeck.errors import ModelNotConfigured, ToolError

        try:
            service = service_from_config(config)
        except ModelNotConfigured as exc:
            raise ToolError(f"no model to ask: {exc}", type="unavailable") from None
        return await service.ask(image, question)

    return {
        AgentServices: for_config(config),
        # How tool_search renders what it finds: as config `model:` and `dialects:` say.
        ToolRendering: ToolRendering.for_config(config),
        VisionService: VisionService(ask, model=config.model.name or ""),
    }


def _names(calls: Sequence[ToolCall]) -> list[str]:
    return [c.name for c in calls]


def _reads_loadout(tool: Tool | None) -> bool:
    """Whether a call of `tool` depends on the rest of the loadout (see `Deck.loadout`)."""
    return tool is not None and (tool.loads_deferred or tool.calls_tools)


def _check_unique_names(sources: list[ToolSource]) -> None:
    seen: set[str] = set()
    for source in sources:
        if source.name in seen:
            raise ConfigError(f"two tool sources are named {source.name!r}; give each source its own name")
        seen.add(source.name)


__all__ = ["Deck", "Explanation"]
