"""The workspace's files, and the results cut for being too long, as read-only MCP resources.

Files are `file:///<path>` with `<path>` relative to the workspace root (percent-encoded; the
host layout never shows). `resources/list` walks the workspace in path order, one page of
`PAGE_SIZE` files at a time (the cursor names the last path looked at), with each file's size,
guessed MIME type and modification time. Left out: the protected set (the config, the modules it
imports, `.git/config`, `.git/hooks`, `sandbox.protected`, ...), the hidden tooldeck home, the
folders tooldeck's searches skip (`.git`, `node_modules`, `.venv`, caches) and symlinked folders;
a symlink to a file inside the workspace is listed under its own name.

`resources/read` is confined like the file tools: `..`, a symlink that leads out and a path
through a file are refused, and so is a protected path (read or not, it is not handed to a
client); the home reads as missing, as it does for the tools. A resource that is not there is
JSON-RPC `-32602` with `{"uri": ...}` as its data (SEP-2164; the 2025-11-25 text suggested
`-32002`, which the SDK marks retired and clients accept either way). UTF-8 text comes back as
text, anything else base64 as a blob. The template `file:///{path}` reaches files beyond the page
a client listed; `completion/complete` for its `path` offers the entries of the folder typed so
far (folders end with `/`).

A result cut by the executor is kept whole in the session's spill store; it is listed as
`tooldeck://results/<id>` (the id its truncation marker names) on the first page of the session
whose call made it, and readable by that id through the template `tooldeck://results/{id}`.

`resources/subscribe` (handshake era) and a `subscriptions/listen` stream's
`resourceSubscriptions` (2026-07-28) are watched on the server's watch interval: when a subscribed
file's size, times or inode change (or it appears or goes), its subscribers get
`notifications/resources/updated`. The file list itself is not watched (that would walk the whole
workspace at every tick), so `resources.listChanged` is declared false.

The resources the deck declares in Python (`deck.resources`, see `declared.py`) come first: its
fixed ones head the first page of `resources/list`, its templates the template list, and a URI
one of them names (or a template matches) is read by calling its function, before any file.
They may be subscribed to; nothing watches them (a declared function cannot say it changed).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from tooldeck.core import ControlPlane, DeclaredResource, Loadout, Session, ToolResult, Workspace
from tooldeck.serve.declared import complete_with, find_declared, mcp_resources, mcp_templates, read_declared
from tooldeck.serve.workspace_files import (
    FILE_TEMPLATE,
    MAX_COMPLETIONS,
    RESULT_TEMPLATE,
    RESULTS,
    Mark,
    WorkspaceFiles,
    decode_cursor,
    encode_cursor,
    invalid,
    not_found,
    result_id,
    result_resource,
    whole_result,
)

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import SubscriptionBus

log = logging.getLogger(__name__)

# Cut results listed per session (the newest).
MAX_RESULTS_LISTED = 100


class Subscriber(Protocol):
    """What the server keeps per handshake-era session that resources need (`ClientState`)."""

    @property
    def session(self) -> ServerSession | None: ...

    @property
    def subscriptions(self) -> set[str]: ...

    @property
    def spilled(self) -> list[str]: ...

    @property
    def calls(self) -> Session: ...


# -- the handlers -----------------------------------------------------------------------------


class ServedResources:
    """The resource handlers of a `DeckServer`, its subscriptions and what they last saw.

    `loadout` assembles the current loadout (the workspace and its protected set come from its
    config); `state` is the session of a request (None at 2026-07-28); `sessions` are the
    sessions remembered; `sessionless` is the session 2026-07-28 calls run in (their results'
    spill store); `bus` carries events to `subscriptions/listen` streams; `declared` are the
    deck's own resources and templates, served first.
    """

    def __init__(
        self,
        *,
        loadout: Callable[[], Awaitable[Loadout]],
        state: Callable[[ServerRequestContext[Any, Any]], Subscriber | None],
        sessions: Callable[[], Iterable[Subscriber]],
        sessionless: Callable[[], Session],
        bus: SubscriptionBus,
        declared: Sequence[DeclaredResource] = (),
    ) -> None:
        self.declared = tuple(declared)
        self._loadout = loadout
        self._state = state
        self._sessions = sessions
        self._sessionless = sessionless
        self._bus = bus
        self._files: WorkspaceFiles | None = None
        # The resource subscriptions of the open listen streams, by stream.
        self._streams: dict[object, frozenset[str]] = {}
        self._marks: dict[str, Mark] = {}
        # Results cut in sessionless (2026-07-28) calls, newest last.
        self._spilled: deque[str] = deque(maxlen=MAX_RESULTS_LISTED)
        self.updates_sent = 0

    async def files(self) -> WorkspaceFiles:
        """The workspace with the protected and hidden sets of the current loadout's config."""
        loadout = await self._loadout()
        config = loadout.config

        def build() -> ControlPlane:
            return ControlPlane.of(config)

        plane = await asyncio.to_thread(loadout.cached_render, ("tooldeck.serve.ControlPlane",), build)
        if self._files is None or self._files.workspace.plane is not plane:
            self._files = WorkspaceFiles(Workspace(config.workspace, plane=plane))
        return self._files

    def spilled(self, state: Subscriber | None, result: ToolResult) -> None:
        """Remember the id of a result the executor cut and kept, for the session's listing."""
        rid = result.meta.get("result_id") if result.ok else None
        if not isinstance(rid, str):
            return
        if state is None:
            self._spilled.append(rid)
        else:
            state.spilled.append(rid)
            del state.spilled[:-MAX_RESULTS_LISTED]

    # -- listing and reading ---------------------------------------------------------------

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        import mcp_types

        cursor = params.cursor if params is not None else None
        after = decode_cursor(cursor) if cursor else None
        state = self._state(ctx)
        files = await self.files()
        found, last = await asyncio.to_thread(files.page, after)
        if after is None:
            kept = state.spilled if state is not None else list(self._spilled)
            found = mcp_resources(self.declared) + [result_resource(rid) for rid in reversed(kept)] + found
        return mcp_types.ListResourcesResult(
            resources=found, next_cursor=encode_cursor(last) if last is not None else None
        )

    async def list_templates(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourceTemplatesResult:
        import mcp_types

        self._state(ctx)
        if params is not None and params.cursor:
            raise invalid("invalid cursor: the templates come in one page")
        return mcp_types.ListResourceTemplatesResult(
            resource_templates=[
                *mcp_templates(self.declared),
                mcp_types.ResourceTemplate(
                    name="workspace-file",
                    title="A file of the workspace",
                    uri_template=FILE_TEMPLATE,
                    description="Any file of the workspace by its path relative to the workspace root.",
                ),
                mcp_types.ResourceTemplate(
                    name="tool-result",
                    title="A cut tool result",
                    uri_template=RESULT_TEMPLATE,
                    description="The whole text of a tool result that was cut, by the id its marker names.",
                    mime_type="text/plain",
                ),
            ]
        )

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        uri = str(params.uri)
        state = self._state(ctx)
        own = find_declared(self.declared, uri)
        if own is not None:
            return await read_declared(own, uri)
        rid = result_id(uri)
        if rid is not None:
            session = state.calls if state is not None else self._sessionless()
            return await asyncio.to_thread(whole_result, session, uri, rid)
        if uri.startswith(RESULTS):
            raise not_found(uri)
        files = await self.files()
        return await asyncio.to_thread(files.read, uri)

    # -- completion --------------------------------------------------------------------------

    async def complete(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.CompleteRequestParams
    ) -> mcp_types.CompleteResult:
        import mcp_types

        state = self._state(ctx)
        ref, argument = params.ref, params.argument
        uri = ref.uri if isinstance(ref, mcp_types.ResourceTemplateReference) else ""
        own = next((r for r in self.declared if r.is_template and r.uri == uri), None)
        if own is not None:
            if argument.name not in own.variables:
                raise invalid(f"resource template {uri!r} has no variable {argument.name!r}")
            pending = own.completions(argument.name, argument.value)
            return await complete_with(pending, {"uri": uri, "argument": argument.name})
        if uri == FILE_TEMPLATE and argument.name == "path":
            files = await self.files()
            values, total = await asyncio.to_thread(files.complete, argument.value)
        elif uri == RESULT_TEMPLATE and argument.name == "id":
            kept = state.spilled if state is not None else list(self._spilled)
            matches = [rid for rid in reversed(kept) if rid.startswith(argument.value)]
            values, total = matches[:MAX_COMPLETIONS], len(matches)
        elif uri in (FILE_TEMPLATE, RESULT_TEMPLATE):
            values, total = [], 0
        else:
            templates = [r.uri for r in self.declared if r.is_template] + [FILE_TEMPLATE, RESULT_TEMPLATE]
            raise invalid(f"no resource template {uri!r}: the templates are {', '.join(templates)}")
        return mcp_types.CompleteResult(
            completion=mcp_types.Completion(values=values, total=total, has_more=total > len(values))
        )

    # -- subscriptions -------------------------------------------------------------------------

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.SubscribeRequestParams
    ) -> mcp_types.EmptyResult:
        import mcp_types

        uri = str(params.uri)
        state = self._state(ctx)
        if state is None:  # the SDK does not route resources/subscribe at 2026-07-28
            raise invalid("resources/subscribe is for handshake-era sessions: use subscriptions/listen")
        # Kept results never change, and nothing tells when a declared one does: nothing to watch.
        if result_id(uri) is None and find_declared(self.declared, uri) is None:
            files = await self.files()
            await asyncio.to_thread(files.check, uri)
            if uri not in self._marks:
                self._marks[uri] = await asyncio.to_thread(files.mark, uri)
        state.subscriptions.add(uri)
        return mcp_types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.UnsubscribeRequestParams
    ) -> mcp_types.EmptyResult:
        import mcp_types

        state = self._state(ctx)
        if state is not None:
            state.subscriptions.discard(str(params.uri))
        self._forget_unwatched()
        return mcp_types.EmptyResult()

    def listen(
        self,
        handler: Callable[
            [ServerRequestContext[Any, Any], mcp_types.SubscriptionsListenRequestParams],
            Awaitable[mcp_types.SubscriptionsListenResult],
        ],
    ) -> Callable[
        [ServerRequestContext[Any, Any], mcp_types.SubscriptionsListenRequestParams],
        Awaitable[mcp_types.SubscriptionsListenResult],
    ]:
        """`handler` (the SDK's `ListenHandler`), with the stream's resource subscriptions watched
        while it is open (marked before it is acknowledged: a change right after counts)."""

        async def listening(
            ctx: ServerRequestContext[Any, Any], params: mcp_types.SubscriptionsListenRequestParams
        ) -> mcp_types.SubscriptionsListenResult:
            uris = frozenset(params.notifications.resource_subscriptions or ())
            token = object()
            if uris:
                files = await self.files()
                for uri in uris - self._marks.keys():
                    self._marks[uri] = await asyncio.to_thread(files.mark, uri)
                self._streams[token] = uris
            try:
                return await handler(ctx, params)
            finally:
                self._streams.pop(token, None)
                self._forget_unwatched()

        return listening

    def _watched(self) -> set[str]:
        watched = {uri for uris in self._streams.values() for uri in uris}
        for state in self._sessions():
            watched |= state.subscriptions
        return {
            uri for uri in watched if result_id(uri) is None and find_declared(self.declared, uri) is None
        }

    def _forget_unwatched(self) -> None:
        watched = self._watched()
        for uri in [u for u in self._marks if u not in watched]:
            del self._marks[uri]

    async def tick(self) -> None:
        """Look at the subscribed files; tell the subscribers of each one that changed."""
        try:
            await self._tick()
        except Exception:  # boundary: a failed look at files must not stop the server's watch
            log.exception("checking the subscribed resources failed")

    async def _tick(self) -> None:
        from mcp.server.subscriptions import ResourceUpdated

        watched = self._watched()
        self._forget_unwatched()
        if not watched:
            return
        files = await self.files()
        now = await asyncio.to_thread(lambda: {uri: files.mark(uri) for uri in sorted(watched)})
        changed = [uri for uri, mark in now.items() if uri in self._marks and self._marks[uri] != mark]
        self._marks.update(now)
        for uri in changed:
            for state in list(self._sessions()):
                if uri in state.subscriptions and state.session is not None:
                    try:
                        await state.session.send_resource_updated(uri)
                    except Exception:  # boundary: a session gone away must not keep the others from hearing
                        log.debug("could not tell a session that %s changed", uri, exc_info=True)
            if any(uri in uris for uris in self._streams.values()):
                await self._bus.publish(ResourceUpdated(uri))
            self.updates_sent += 1
