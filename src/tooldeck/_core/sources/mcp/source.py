"""`McpSource`: one MCP server as a tool source of the deck, like any other source.

The server starts connecting when the source is made (so a deck's servers connect at the same
time); listing waits for that first attempt, at most the connect timeout. A server that never
got ready lists no tools and a diagnostic with the reason. A server that was ready and went
down keeps its tools listed, each with a check that answers "unavailable" and why, and tells the
deck (`changed("availability")`); a changed tool list on the server re-lists the source
(`changed("tools")`). A call while the server is down is an `unavailable` error, never
"unknown tool".
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck._core.availability_types import AVAILABLE, Availability
from tooldeck._core.context import ToolContext
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.output import ToolOutput
from tooldeck._core.sources.base import ChangeKind, Source, SourceListing
from tooldeck._core.sources.mcp.asks import Caller
from tooldeck._core.sources.mcp.convert import call_output, deck_tools, path_rewriter
from tooldeck._core.sources.mcp.loop import McpLoop, mcp_loop
from tooldeck._core.sources.mcp.naming import MAX_NAME, server_prefix
from tooldeck._core.sources.mcp.pool import McpThread, SessionPool
from tooldeck._core.sources.mcp.settings import ServerSpec
from tooldeck._core.sources.mcp.supervisor import USABLE, State, Supervisor
from tooldeck._core.tool import Tool

# The config keys whose warnings `mcp list` shows with the server.
_PATTERN_KEYS = (".include_tools", ".exclude_tools")


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One server as `tooldeck mcp list` shows it."""

    name: str
    state: State
    tools: tuple[str, ...]
    error: str | None
    transport: str
    target: str
    # Config warnings about this server's tools (a pattern in include_tools that matches none).
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "state": self.state,
            "tools": list(self.tools),
            "error": self.error,
            "warnings": list(self.warnings),
        }


class McpSource(Source):
    """The tools of one MCP server (`mcp__<server>__<tool>`, toolset `mcp-<server>`)."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        workspace: Path | None = None,
        files: Path | None = None,
        loop: McpLoop | None = None,
    ) -> None:
        super().__init__(f"mcp-{spec.name}", "mcp")
        self.spec = spec
        self.workspace = workspace
        # Where images and binary resources from results are saved (default: not saved, only described).
        self.files = files
        self.loop = loop or mcp_loop()
        self.pool = SessionPool(spec) if spec.scope == "thread" else None
        self._built: tuple[Any, list[Tool], list[Diagnostic]] | None = None
        self.supervisor = Supervisor(
            _discovery(spec, workspace), loop=self.loop, on_change=self._server_changed
        )

    # -- listing -----------------------------------------------------------------------------

    def list_tools(self) -> SourceListing:
        sup = self.supervisor
        where = f"mcp_servers.{self.spec.name}"
        if self.loop.in_loop and not sup.first_attempt.is_set():
            # Waiting here would stop the very loop the server connects on.
            note = f"MCP server {self.spec.name!r} ({self.spec.target}) is still connecting, its tools are not known yet"
            return SourceListing((), (Diagnostic("warning", note, where),))
        sup.wait_first(self.spec.listing_wait_s)
        server_tools = sup.server_tools
        if server_tools is None:
            why = sup.error or f"timed out: no answer within {self.spec.connect_timeout:g} s"
            note = f"MCP server {self.spec.name!r} ({self.spec.target}) is not available, its tools are unknown: {why}"
            # A warning, not an error: the command goes on without the server (it may come back),
            # and strict: true does not apply to it (a server that fails is no config mistake).
            return SourceListing((), (Diagnostic("warning", note, where),))
        built = self._built
        if built is None or built[0] is not server_tools:
            tools, notes = deck_tools(self.spec, server_tools, check=self.check, handler=self._handler)
            built = self._built = (server_tools, tools, notes)
        notes = list(built[2])
        if sup.state not in USABLE:
            notes.append(
                Diagnostic("warning", sup.unavailable_reason() + "; its tools are unavailable", where)
            )
        return SourceListing(tuple(built[1]), tuple(notes))

    def listed(self) -> bool:
        """Whether the first connection attempt is over, so listing does not wait."""
        return self.supervisor.first_attempt.is_set()

    def may_offer(self, name: str) -> bool:
        """Every tool of this server is named `mcp__<server>__...` (see `naming`)."""
        return name.startswith(server_prefix(self.spec.name)[:MAX_NAME])

    def check(self) -> Availability:
        """Every tool of this server is available exactly when the server is."""
        sup = self.supervisor
        return AVAILABLE if sup.state in USABLE else Availability.no(sup.unavailable_reason())

    def status(self) -> ServerStatus:
        sup = self.supervisor
        if sup.server_tools is None:
            return ServerStatus(
                self.spec.name, sup.state, (), sup.error, self.spec.transport, self.spec.target
            )
        listing = self.list_tools()
        names = tuple(t.name for t in listing.tools)
        warnings = tuple(str(d) for d in listing.diagnostics if (d.path or "").endswith(_PATTERN_KEYS))
        spec = self.spec
        return ServerStatus(spec.name, sup.state, names, sup.error, spec.transport, spec.target, warnings)

    def _server_changed(self, change: ChangeKind) -> None:
        self.changed(change)

    # -- calls -------------------------------------------------------------------------------

    def _handler(self, server_tool: str) -> Any:
        loop, sup, pool, files = self.loop, self.supervisor, self.pool, self.files

        async def call_shared(
            arguments: dict[str, Any], context: ToolContext | None = None
        ) -> str | ToolOutput:
            result = await loop.bridge(sup.call(server_tool, arguments, _caller(context)))
            return call_output(result, files=files, call_id=_call_id(context))

        async def call_in_thread(
            arguments: dict[str, Any], context: ToolContext | None = None
        ) -> str | ToolOutput:
            assert pool is not None
            key, workspace = self._thread(context)
            caller = _caller(context)
            result = await loop.bridge(pool.call(key, workspace, server_tool, arguments, caller))
            rewrite = path_rewriter(workspace)
            return call_output(result, files=workspace / ".tmp", call_id=_call_id(context), rewrite=rewrite)

        return call_in_thread if pool is not None else call_shared

    def _thread(self, context: ToolContext | None) -> tuple[tuple[str, str], Path]:
        offered = context.get(McpThread) if context is not None else None
        user = offered.user if offered is not None else "default"
        thread = (offered.thread if offered is not None else None) or (
            context.session_id if context is not None else None
        )
        workspace = (offered.workspace if offered is not None else None) or (
            context.workspace if context is not None else None
        )
        return (user, thread or "default"), Path(workspace or self.workspace or Path.cwd()).resolve()

    # -- life --------------------------------------------------------------------------------

    async def aclose(self) -> None:
        if self.pool is not None:
            await self.pool.aclose()
        await self.supervisor.aclose()

    def close(self) -> None:
        """Stop the server (and every thread session): no child process is left behind."""
        if self.loop.in_loop:
            self.loop.submit(self.aclose())
        else:
            # On a timeout, what is left is tied to this process: the children go when it does.
            with contextlib.suppress(TimeoutError):
                self.loop.wait(self.aclose(), 30.0)
        super().close()


def _discovery(spec: ServerSpec, workspace: Path | None) -> ServerSpec:
    """The spec of the session that lists a server's tools; a thread-scoped one runs in the deck's workspace."""
    if spec.scope != "thread" or workspace is None:
        return spec
    with contextlib.suppress(OSError):  # if it cannot be made, the server's start says so
        (workspace / ".tmp").mkdir(parents=True, exist_ok=True)
    return spec.pinned(workspace)


def _caller(context: ToolContext | None) -> Caller | None:
    """Whom the server's questions during this call go to: the call's own channel."""
    if context is None:
        return None
    return Caller(context.channel, context.loop, context.tool_name, context.call_id)


def _call_id(context: ToolContext | None) -> str:
    """The call's id, the stem of the files its result saves (`result_text` makes each name unique)."""
    return context.call_id if context is not None and context.call_id else "call"
