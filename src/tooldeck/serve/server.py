"""`DeckServer`: a deck's loadout as an MCP server, on the official `mcp` SDK's low-level server.

Every `tools/list` assembles the loadout again (cheap while nothing changed) and lists its
exposed tools, exactly what `tooldeck tools` shows. Every `tools/call` runs through the same
executor as any other call - validation, policy, approvals, timeouts, result shaping - and a
failure comes back as a tool result with `isError: true` and the error envelope as text.

Changes reach connected clients as `notifications/tools/list_changed`: a watcher assembles
again when a source announces a change (an MCP server behind it, an ACP agent that failed to
start) and every `interval_s` (checks that flip with their TTL), and tells every session when
the listing differs from what clients last saw. Handshake-era sessions get the notification on
their connection; 2026-07-28 clients get it on their `subscriptions/listen` stream.

Per client session the server keeps approval grants and the deferred tools `tool_search`
promoted (`ClientState`): a session lists the exposed tools, `tool_search` (whose description
names the deferred tools) and the tools it promoted, and a promotion sends that session alone a
`list_changed`. Change tracking is per session: each is told when its own listing changed.
2026-07-28 requests have no session, so nothing can remember a promotion: such a client lists
the exposed tools and `tool_search`, which returns the full definitions of the tools it finds,
and may then call those deferred tools directly.

To 2026-07-28 clients that declare MCP's tasks extension, a call may be answered with a task
handle and go on in the background (`tasks.py`: `serve.task_after_s`, a tool's `task_support`,
`ctx.run_as_task()`); the extension is advertised in `server/discover`.

The resources and prompts the deck declares (`@resource`, `@prompt`: `declared.py`) come first;
then the workspace's files and the results cut for length are resources (`resources.py`:
listing, reading, templates, subscriptions watched on the same interval), the skills prompts
(`prompts.py`); `completion/complete` serves all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tooldeck import tracing
from tooldeck.core import (
    Approvals,
    Approver,
    ChangeKind,
    Grants,
    Loadout,
    LoggingLevel,
    PromotedView,
    Promotions,
    RunState,
    Session,
    ToolCall,
    ToolChannel,
    ToolRendering,
    ToolResult,
    ToolSource,
    catalog_hash,
    promote,
)
from tooldeck.errors import ProtocolError
from tooldeck.serve import wire
from tooldeck.serve.approvals import CannotAsk, ElicitationApprover, RoundTripApprover, supports_elicitation
from tooldeck.serve.channel import ServeChannel
from tooldeck.serve.config import ServeConfig
from tooldeck.serve.deck import ServedDeck
from tooldeck.serve.prompts import ServedPrompts
from tooldeck.serve.resources import ServedResources
from tooldeck.serve.round_trips import RoundTrip
from tooldeck.serve.tasks import TASKS, ServedTasks, TaskHandoff, declared, missing_extension

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import HandlerResult, ServerRequestContext
    from mcp.server.lowlevel.server import Server
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import InMemorySubscriptionBus

# Sessions remembered for notifications and grants; the oldest is forgotten beyond this.
MAX_SESSIONS = 512


@dataclass
class ClientState:
    """What the server keeps for one client session (a handshake-era connection).

    `calls` is the tooldeck session its calls run in (the approvals given with "remember", the
    services, the middleware); `state` is the run state of its calls, holding the deferred tools
    `tool_search` promoted (see `tooldeck._core.disclosure`).
    """

    key: str
    calls: Session
    session: ServerSession | None = None
    state: RunState = field(default_factory=RunState)
    promoted: PromotedView = field(default_factory=PromotedView)
    # What this session's last tools/list showed (None before its first listing).
    seen: wire.Signature | None = None
    # The lowest level of tools' log messages it gets (`logging/setLevel`; None: every level).
    log_level: LoggingLevel | None = None
    # The resource URIs it subscribed to, and the ids of its calls' results cut and kept aside.
    subscriptions: set[str] = field(default_factory=set)
    spilled: list[str] = field(default_factory=list)

    @property
    def grants(self) -> Grants:
        return self.calls.grants

    def view(self, base: Loadout) -> Loadout:
        """The session's loadout: `base` with the tools it promoted exposed."""
        return self.promoted.view(base, self.state)


class DeckServer:
    """Serves one deck's loadout for one platform to any number of MCP sessions."""

    def __init__(
        self,
        deck: ServedDeck,
        *,
        platform: str | None = None,
        interval_s: float = 2.0,
        name: str = "tooldeck",
    ) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        from tooldeck._utils.version import __version__

        self.deck = deck
        self.platform = platform
        self.interval_s = interval_s
        self.bus: InMemorySubscriptionBus = InMemorySubscriptionBus()
        # The declared resources, the workspace's files and cut results as resources; the declared
        # prompts and the skills as prompts.
        self.resources = ServedResources(
            loadout=self.loadout,
            state=self._state,
            sessions=lambda: list(self._sessions.values()),
            sessionless=lambda: self._session("serve", direct=True),
            bus=self.bus,
            declared=deck.resources,
        )
        self.prompts = ServedPrompts(
            deck.config,
            state=self._state,
            sessions=lambda: list(self._sessions.values()),
            bus=self.bus,
            declared=deck.prompts,
        )
        with warnings.catch_warnings():  # logging is deprecated in 2026-07-28; older clients use it
            warnings.simplefilter("ignore")
            self.server: Server[Any] = _server_class()(
                name,
                version=__version__,
                instructions="Tools assembled by tooldeck: the loadout `tooldeck tools` shows.",
                on_list_tools=self._list_tools,
                on_subscriptions_listen=self.resources.listen(ListenHandler(self.bus)),
                on_set_logging_level=self._set_logging_level,
                on_list_resources=self.resources.list_resources,
                on_list_resource_templates=self.resources.list_templates,
                on_read_resource=self.resources.read_resource,
                on_subscribe_resource=self.resources.subscribe,
                on_unsubscribe_resource=self.resources.unsubscribe,
                on_list_prompts=self.prompts.list_prompts,
                on_get_prompt=self.prompts.get_prompt,
                on_completion=self._complete,
            )
        # requestState is sealed (AES-GCM under a key of this process, bound to the request,
        # expiring) and verified before a handler sees it: a tampered one is -32602.
        from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

        self.server.middleware.append(
            RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=name)
        )
        # A call may be answered with a task handle as well as a result (registered here: the
        # constructor's hook is typed for results only).
        import mcp_types

        self.server.add_request_handler("tools/call", mcp_types.CallToolRequestParams, self._call_tool)
        # MCP's tasks extension: long calls as tasks the client polls (tasks.py).
        self.tasks = ServedTasks(deck.config.section(ServeConfig))
        self.tasks.install(self.server)
        self._sessions: OrderedDict[str, ClientState] = OrderedDict()
        self._seen: wire.Signature | None = None
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self.notifications_sent = 0

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options()

    # -- the loadout and its changes --------------------------------------------------------

    async def loadout(self) -> Loadout:
        """The current loadout, assembled off the event loop (a slow check must not stall it)."""
        return await asyncio.to_thread(self.deck.loadout, self.platform)

    async def watch(self) -> None:
        """Run until cancelled: assemble on source changes and every `interval_s`, notify on change."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._unsubscribe = [source.subscribe(self._source_changed) for source in self.deck.sources]
        try:
            self._seen = wire.signature(await self.loadout())
            await self.prompts.tick()  # the first look: what later ones compare with
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.interval_s)
                self._wake.clear()
                await self.refresh()
                # Subscribed files that changed, and the skills (prompts); each catches its own failures.
                await self.resources.tick()
                await self.prompts.tick()
        finally:
            for unsubscribe in self._unsubscribe:
                unsubscribe()

    def _source_changed(self, source: ToolSource, change: ChangeKind) -> None:
        # Called on any thread; the deck (subscribed first) has already taken the change in.
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    async def refresh(self) -> bool:
        """Assemble now; when the listing changed since clients last saw it, tell them. True if so."""
        return await self._observe(await self.loadout())

    async def _observe(self, loadout: Loadout) -> bool:
        """Tell every client whose listing differs from what it last saw: each session by its own
        view (its promotions), sessionless clients by the shared listing."""
        from mcp.server.subscriptions import ToolsListChanged

        told = False
        current = wire.signature(loadout)
        if current != self._seen:
            self._seen = current
            await self.bus.publish(ToolsListChanged())
            told = True
        for state in list(self._sessions.values()):
            told = await self._tell(state, state.view(loadout)) or told
        if told:
            self.notifications_sent += 1
        return told

    async def _tell(self, state: ClientState, view: Loadout) -> bool:
        """Send this session `list_changed` when its listing differs from the one it last received."""
        listing = wire.signature(view)
        if state.seen is None or listing == state.seen:
            return False
        state.seen = listing
        if state.session is not None:
            await state.session.send_tool_list_changed()
        return True

    # -- sessions -----------------------------------------------------------------------------

    def _state(self, ctx: ServerRequestContext[Any, Any]) -> ClientState | None:
        """The session's state (remembered for notifications); None for 2026-07-28 requests."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None  # no session at this era: every request stands alone
        headers = getattr(ctx.request, "headers", None)
        key = (headers.get("mcp-session-id") if headers is not None else None) or "stdio"
        state = self._sessions.get(key)
        if state is None:
            state = self._sessions[key] = ClientState(key, self._session(f"serve-{key}", direct=False))
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(key)
        state.session = ctx.session
        return state

    def _session(self, session_id: str, *, direct: bool) -> Session:
        # tool_search answers with MCP tool definitions.
        services: dict[type, object] = {ToolRendering: ToolRendering("mcp")}
        return self.deck.session(
            platform=self.platform, session_id=session_id, direct=direct, services=services
        )

    # -- handlers -----------------------------------------------------------------------------

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        import mcp_types

        state = self._state(ctx)
        loadout = await self.loadout()
        if self._seen is not None:  # other sessions may not have heard of a change yet
            await self._observe(loadout)
        view = state.view(loadout) if state is not None else loadout
        if state is not None:
            state.seen = wire.signature(view)
        return mcp_types.ListToolsResult(tools=wire.mcp_tools(view))

    async def _set_logging_level(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.SetLevelRequestParams
    ) -> mcp_types.EmptyResult:
        import mcp_types

        state = self._state(ctx)
        if state is not None:
            state.log_level = params.level
        return mcp_types.EmptyResult()

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.CallToolRequestParams
    ) -> HandlerResult:
        with tracing.continued(params.meta):  # the caller's trace, from `_meta.traceparent`
            return await self._run_call(ctx, params)

    async def _run_call(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.CallToolRequestParams
    ) -> HandlerResult:
        state = self._state(ctx)
        loadout = await self.loadout()
        view = state.view(loadout) if state is not None else loadout
        approver: Approver = CannotAsk()
        # 2026-07-28: a call's questions go back in its result and come back answered.
        trip = RoundTrip(params.request_state, params.input_responses) if state is None else None
        # The tasks extension (2026-07-28, declared on this request): the call may become a task.
        tool = view.get(params.name)
        support = tool.task_support if tool is not None else "forbidden"
        tasks_ok = trip is not None and declared(ctx.session.client_capabilities)
        if support == "required" and not tasks_ok:
            raise missing_extension(f"tool {params.name!r}")
        handoff = TaskHandoff() if tasks_ok and support != "forbidden" else None
        channel = ServeChannel(
            ctx.session,
            ctx.request_id,
            level=state.log_level if state is not None else None,
            round_trip=trip,
            handoff=handoff,
        )
        services: dict[type, object] = {ToolChannel: channel}
        if supports_elicitation(ctx.session.client_capabilities):
            if trip is not None:
                approver = RoundTripApprover(trip)
                # No asking mid-call at this era: a running tool's own approvals get no.
                services[Approvals] = Approvals()
            else:
                approver = ElicitationApprover(ctx.session, ctx.request_id)
        # 2026-07-28 requests stand alone: a one-shot session, deferred tools callable directly.
        session = state.calls if state is not None else self._session("serve", direct=True)
        call = ToolCall(f"mcp-{ctx.request_id}", params.name, params.arguments)
        # A copy: calls of one session may run at once, and promotions are merged here, in turn.
        run_state = state.state.copy() if state is not None else RunState()
        work = session.execute([call], loadout=view, state=run_state, approver=approver, services=services)

        async def answer(result: ToolResult) -> HandlerResult:
            if state is not None and result.update is not None and result.update.promoted is not None:
                await self._promoted(state, loadout, result.update.promoted)
            self.resources.spilled(state, result)
            if channel.missing is not None:
                raise _missing_capability(channel.missing)
            if (error := result.meta.get(ProtocolError.META_KEY)) is not None:
                raise _protocol_error(error)
            if trip is not None and trip.pending and channel.task is None:
                return trip.input_required()
            return wire.call_result(result)

        if handoff is None:
            [result] = await work
            return await answer(result)
        return await self.tasks.run(
            params.name,
            work,
            handoff,
            required=support == "required",
            answer=answer,
            asking=lambda: trip is not None and bool(trip.pending),
        )

    async def _complete(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.CompleteRequestParams
    ) -> mcp_types.CompleteResult:
        """Completion of a prompt's arguments (a declared prompt's `complete=`, a skill's `values`)
        or a resource template's variables."""
        import mcp_types

        if isinstance(params.ref, mcp_types.PromptReference):
            return await self.prompts.complete(params)
        return await self.resources.complete(ctx, params)

    async def _promoted(self, state: ClientState, loadout: Loadout, record: Promotions) -> None:
        """Add a call's promotions to the session, and tell it its listing changed."""
        if record.catalog != catalog_hash(loadout):
            return  # the catalog changed while the call ran: what it found may be gone
        view = state.view(loadout)  # carries the session's promotions over to the current catalog
        promote(state.state, view, record.names)
        if await self._tell(state, state.view(loadout)):
            self.notifications_sent += 1


def _missing_capability(capability: str) -> Exception:
    """The 2026-07-28 refusal of a call that needs a client capability the request did not declare."""
    import mcp_types
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

    needed = (
        mcp_types.ClientCapabilities(sampling=mcp_types.SamplingCapability())
        if capability == "sampling"
        else mcp_types.ClientCapabilities(elicitation=mcp_types.ElicitationCapability())
    )
    data = mcp_types.MissingRequiredClientCapabilityErrorData(required_capabilities=needed)
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"this tool needs the client's {capability} capability, which the request did not declare",
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


def _protocol_error(error: Any) -> Exception:
    """The JSON-RPC error of a call whose tool raised `ProtocolError`."""
    from mcp.shared.exceptions import MCPError

    return MCPError(code=int(error["code"]), message=str(error["message"]), data=error.get("data"))


def _server_class() -> type[Server[Any]]:
    """The SDK's low-level server, declaring `tools.listChanged` and `prompts.listChanged` true
    and `resources.listChanged` false whoever asks for its options.

    The tool list does change, and clients are told (see the module docstring); so does the prompt
    list (a SKILL.md edited, see `prompts.py`). The stdio runner is handed the options, but the
    streamable HTTP manager asks the server for them with no arguments, which would declare
    `false`: so the default itself says what is done. The resource list is not watched (see
    `resources.py`), though at 2026-07-28 the SDK would derive `true` from `subscriptions/listen`
    being served; subscribed resources are, so `resources.subscribe` stays as derived (true).
    """
    global _SERVER_CLASS
    if _SERVER_CLASS is None:
        from mcp.server.lowlevel.server import NotificationOptions, Server

        class DeckMcpServer(Server[Any]):
            def create_initialization_options(
                self,
                notification_options: NotificationOptions | None = None,
                experimental_capabilities: dict[str, dict[str, Any]] | None = None,
                extensions: dict[str, dict[str, Any]] | None = None,
            ) -> Any:
                options = notification_options or NotificationOptions(
                    tools_changed=True, prompts_changed=True
                )
                return super().create_initialization_options(options, experimental_capabilities, extensions)

            def get_capabilities(
                self,
                notification_options: NotificationOptions | None = None,
                experimental_capabilities: dict[str, dict[str, Any]] | None = None,
                extensions: dict[str, dict[str, Any]] | None = None,
                *,
                protocol_version: str | None = None,
            ) -> mcp_types.ServerCapabilities:
                found = super().get_capabilities(
                    notification_options,
                    experimental_capabilities,
                    extensions,
                    protocol_version=protocol_version,
                )
                if found.extensions and TASKS in found.extensions and _legacy(protocol_version):
                    # Tasks are served at 2026-07-28 only (the extension is defined on that revision).
                    rest = {k: v for k, v in found.extensions.items() if k != TASKS}
                    found = found.model_copy(update={"extensions": rest or None})
                if found.resources is None:
                    return found
                resources = found.resources.model_copy(update={"list_changed": False})
                return found.model_copy(update={"resources": resources})

        _SERVER_CLASS = DeckMcpServer
    return _SERVER_CLASS


_SERVER_CLASS: type[Server[Any]] | None = None


def _legacy(protocol_version: str | None) -> bool:
    """A handshake-era protocol version (None: not known, as when the HTTP manager asks)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return protocol_version is not None and protocol_version not in MODERN_PROTOCOL_VERSIONS
