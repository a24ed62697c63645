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
import base64
import binascii
import json
import logging
import mimetypes
import os
import re
import stat
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote, unquote, urlsplit

from tooldeck.core import ControlPlane, DeclaredResource, Loadout, Session, ToolResult, Workspace
from tooldeck.errors import Refused, TooldeckError, ToolError, WorkspaceError
from tooldeck.serve.declared import complete_with, find_declared, mcp_resources, mcp_templates, read_declared

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import SubscriptionBus
    from mcp.shared.exceptions import MCPError

log = logging.getLogger(__name__)

PAGE_SIZE = 100
# Entries looked at per listing request at most: a page of a huge tree ends early, with a cursor.
MAX_VISITS = 20_000
MAX_READ_BYTES = 8 * 1024 * 1024
MAX_COMPLETIONS = 100
# Cut results listed per session (the newest).
MAX_RESULTS_LISTED = 100
FILE_TEMPLATE = "file:///{path}"
RESULT_TEMPLATE = "tooldeck://results/{id}"
RESULTS = "tooldeck://results/"
# What the file tools' searches skip as well: not the project's own files.
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})
_END_OF_RESULT = re.compile(r"\n\n\[characters 0-(\d+) of (\d+); end of result\]\Z")

# What a watched file looked like: (mtime, ctime, size, inode), None when it cannot be seen.
Mark = tuple[int, int, int, int] | None


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


# -- errors -------------------------------------------------------------------------------------


def not_found(uri: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, f"Resource not found: {uri}", data={"uri": uri})


def refused(uri: str, why: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, f"cannot read {uri}: {why}", data={"uri": uri, "reason": why})


def invalid(message: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, message)


# -- URIs and cursors -------------------------------------------------------------------------


def file_uri(parts: Sequence[str]) -> str:
    return "file:///" + quote("/".join(parts), safe="/")


def file_path(uri: str) -> str | None:
    """The workspace-relative path a `file:` URI names, None for another scheme or a host."""
    try:
        split = urlsplit(uri)
    except ValueError:
        return None
    if split.scheme.lower() != "file" or split.netloc not in ("", "localhost"):
        return None
    if split.query or split.fragment:
        return None
    return unquote(split.path).lstrip("/")


def result_id(uri: str) -> str | None:
    """The id of a `tooldeck://results/<id>` URI, None for any other URI."""
    if not uri.startswith(RESULTS):
        return None
    found = unquote(uri[len(RESULTS) :])
    return found if found and "/" not in found else None


def encode_cursor(parts: Sequence[str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(parts)).encode()).decode()


def decode_cursor(cursor: str) -> tuple[str, ...]:
    try:
        parts = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid(f"invalid cursor {cursor[:80]!r}: pass on the nextCursor of the last page") from None
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        raise invalid(f"invalid cursor {cursor[:80]!r}: pass on the nextCursor of the last page")
    return tuple(parts)


# -- the workspace's files (blocking: run off the event loop) -----------------------------------


class WorkspaceFiles:
    """Listing, reading, completing and watching the files of one workspace (see the module
    docstring); blocking calls, made in a worker thread."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def page(self, after: tuple[str, ...] | None) -> tuple[list[mcp_types.Resource], tuple[str, ...] | None]:
        """The files after `after` in path order (one page), and the cursor of the next page."""
        found: list[mcp_types.Resource] = []
        for visits, (parts, info) in enumerate(self._walk((), after), 1):
            if info is not None:
                found.append(resource(parts, info))
                if len(found) >= PAGE_SIZE:
                    return found, parts
            if visits >= MAX_VISITS:
                return found, parts
        return found, None

    def _walk(
        self, folder: tuple[str, ...], after: tuple[str, ...] | None
    ) -> Iterator[tuple[tuple[str, ...], os.stat_result | None]]:
        """Every entry looked at, in path order, after `after` (a file: with its stat, to list it)."""
        fs = self.workspace.fs
        try:
            entries = fs.listdir(folder)
        except (OSError, Refused):
            return
        for entry in entries:
            parts = (*folder, entry.name)
            if after is not None and parts < after and after[: len(parts)] != parts:
                continue  # this entry, and all it holds, came on an earlier page
            if entry.kind == "other" or (entry.kind == "dir" and entry.name in SKIP_DIRS):
                yield parts, None
                continue
            if self.workspace.protected(parts) is not None:
                yield parts, None
                continue
            if entry.kind == "dir":
                yield parts, None
                yield from self._walk(parts, after)
                continue
            try:
                info: os.stat_result | None = fs.stat(parts)  # a symlink: followed, inside only
            except (OSError, Refused):
                info = None
            if info is not None and not stat.S_ISREG(info.st_mode):
                info = None
            yield parts, info if after is None or parts > after else None

    def parts(self, uri: str) -> tuple[str, ...]:
        """The workspace path a file URI names, checked as the file tools check it."""
        rel = file_path(uri)
        if rel is None:
            raise not_found(uri)
        if not rel.strip("/"):
            raise refused(uri, "it names the workspace folder itself, not a file")
        try:
            return self.workspace.parts(rel)
        except WorkspaceError as exc:
            raise refused(uri, str(exc)) from None
        except ToolError:
            raise not_found(uri) from None  # hidden (the home): as missing as for the tools

    def check(self, uri: str) -> None:
        """Raise the error reading `uri` would, but for a file that does not exist (yet)."""
        parts = self.parts(uri)
        why = self.workspace.protected(parts)
        if why is not None:
            raise refused(uri, f"it is a protected path ({why})")

    def read(self, uri: str) -> mcp_types.ReadResourceResult:
        import mcp_types

        parts = self.parts(uri)
        ws = self.workspace
        try:
            fd = ws.fs.open(parts, os.O_RDONLY | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            raise not_found(uri) from None
        except Refused as exc:
            raise refused(uri, str(ws.refusal(Workspace.display(parts), exc))) from None
        except OSError as exc:
            raise refused(uri, exc.strerror or str(exc)) from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise refused(uri, "it is a folder, not a file (list the files with resources/list)")
            if not stat.S_ISREG(info.st_mode):
                raise refused(uri, "it is not a regular file (a pipe, socket or device)")
            # Checked on what was opened: a symlink swapped in meanwhile cannot lead it elsewhere.
            why = _protects(ws, fd, parts)
            if why is not None:
                raise refused(uri, f"it is a protected path ({why})")
            if info.st_size > MAX_READ_BYTES:
                raise refused(uri, f"it is {info.st_size} bytes, more than the {MAX_READ_BYTES} served")
            data = _read_all(fd, MAX_READ_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_READ_BYTES:
            raise refused(uri, f"it is more than the {MAX_READ_BYTES} bytes served")
        return mcp_types.ReadResourceResult(contents=[contents(uri, parts[-1], data)])

    def mark(self, uri: str) -> Mark:
        """What the file looks like now, to tell a change (None: missing or not to be seen)."""
        rel = file_path(uri)
        if rel is None:
            return None
        try:
            info = self.workspace.fs.stat(self.workspace.parts(rel))
        except (OSError, TooldeckError):
            return None
        return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)

    def complete(self, typed: str) -> tuple[list[str], int]:
        """The entries of the folder `typed` names so far that start with its last part (folders
        with a trailing `/`), at most `MAX_COMPLETIONS`, and how many there are."""
        value = typed.lstrip("/")
        folder, _, start = value.rpartition("/")
        try:
            where = self.workspace.parts(folder) if folder.strip("/") else ()
            entries = self.workspace.fs.listdir(where)
        except (OSError, TooldeckError):
            return [], 0
        prefix = "/".join(where) + "/" if where else ""
        found: list[str] = []
        total = 0
        for entry in entries:
            if not entry.name.startswith(start) or entry.kind == "other":
                continue
            parts = (*where, entry.name)
            is_dir = entry.kind == "dir"
            if entry.kind == "link":
                try:
                    mode = self.workspace.fs.stat(parts).st_mode
                except (OSError, Refused):
                    continue
                if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                    continue
                is_dir = stat.S_ISDIR(mode)
            if is_dir and entry.name in SKIP_DIRS:
                continue
            if self.workspace.protected(parts) is not None:
                continue
            total += 1
            if len(found) < MAX_COMPLETIONS:
                found.append(prefix + entry.name + ("/" if is_dir else ""))
        return found, total


def _protects(ws: Workspace, fd: int, parts: Sequence[str]) -> str | None:
    plane = ws.plane
    if plane is None:
        return None
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = ws.resolve(parts)
    return plane.protects(real)


def _read_all(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := os.read(fd, min(1 << 20, limit - size))):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def text_of(data: bytes) -> str | None:
    """`data` as text when it is UTF-8 without NUL bytes, else None (a binary file)."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def contents(
    uri: str, name: str, data: bytes
) -> mcp_types.TextResourceContents | mcp_types.BlobResourceContents:
    import mcp_types

    mime = mimetypes.guess_type(name)[0]
    text = text_of(data)
    if text is not None:
        return mcp_types.TextResourceContents(uri=uri, mime_type=mime or "text/plain", text=text)
    blob = base64.b64encode(data).decode("ascii")
    return mcp_types.BlobResourceContents(uri=uri, mime_type=mime or "application/octet-stream", blob=blob)


def resource(parts: Sequence[str], info: os.stat_result) -> mcp_types.Resource:
    import mcp_types

    modified = datetime.fromtimestamp(info.st_mtime, UTC).isoformat().replace("+00:00", "Z")
    return mcp_types.Resource(
        uri=file_uri(parts),
        name="/".join(parts),
        title=parts[-1],
        mime_type=mimetypes.guess_type(parts[-1])[0],
        size=info.st_size,
        annotations=mcp_types.Annotations(last_modified=modified),
    )


def result_resource(rid: str) -> mcp_types.Resource:
    import mcp_types

    return mcp_types.Resource(
        uri=RESULTS + quote(rid, safe=""),
        name=f"result {rid}",
        description="The whole text of a tool result that was cut for being too long.",
        mime_type="text/plain",
    )


def whole_result(session: Session, uri: str, rid: str) -> mcp_types.ReadResourceResult:
    """The full text the session's spill store keeps under `rid` (its `read`, in one page)."""
    import mcp_types

    try:
        page = session.spill.read(rid, 0, 1 << 40)
    except ToolError:
        raise not_found(uri) from None
    end = _END_OF_RESULT.search(page)
    if end is not None and end.group(1) == end.group(2) and int(end.group(2)) == end.start():
        page = page[: end.start()]
    return mcp_types.ReadResourceResult(
        contents=[mcp_types.TextResourceContents(uri=uri, mime_type="text/plain", text=page)]
    )


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
