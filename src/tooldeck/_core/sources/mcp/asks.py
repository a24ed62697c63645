"""A server that asks back: its elicitation, sampling and roots requests, its log messages and
progress, handed to whoever runs the call that caused them.

Each call a connection makes is registered as a `Caller`: the running call's `ToolChannel` (the
terminal prompt or `--yes` of `tooldeck call`, an application's approver, `serve`'s own client
when tooldeck sits in the middle, the agent loop's model for sampling) and the event loop it
lives on. A request from the server goes to the call it belongs to: the one whose task sent it
(known on 2026-07-28 round trips, and over HTTP where the answer stream carries the sender's
context), else the only call in flight. With no call to ask, or several and no telling which,
the answer is no: elicitation is declined, sampling refused, and the model never sees it.

What a server sends is treated as hostile: a form that is not one MCP allows is declined before
anyone is asked (`check_form`), and what the user answers is checked against the form.
Sampling is off unless the server's config says `sampling: allow`; the reply of the model goes
back to the server, never into the conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._core.channel import (
    LEVELS,
    Elicitation,
    ElicitationRequest,
    LogEntry,
    ProgressReport,
    SamplingMessage,
    SamplingRequest,
    ToolChannel,
    check_form,
    checked_answer,
)
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    import mcp_types

T = TypeVar("T")
# A sampling request's max_tokens is capped here: a server cannot make the agent's model write a book.
MAX_SAMPLING_TOKENS = 8192


@dataclass(frozen=True, slots=True)
class Caller:
    """The call a request from the server is put to: its channel, on its loop."""

    channel: ToolChannel
    loop: asyncio.AbstractEventLoop | None
    tool: str
    call_id: str

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` on the caller's loop (where its channel lives), from the MCP loop."""
        loop = self.loop
        if loop is None or loop is asyncio.get_running_loop() or loop.is_closed():
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


_CURRENT: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("tooldeck_mcp_caller", default=None)


class Asks:
    """The callbacks a connection's session takes, and the calls in flight they answer for."""

    def __init__(self, server: str, *, sampling: bool, roots: tuple[Path, ...]) -> None:
        self.server = server
        self.sampling = sampling
        self.roots = roots
        self._in_flight: list[Caller] = []

    @contextlib.contextmanager
    def calling(self, caller: Caller | None) -> Iterator[None]:
        """Mark `caller` as the call in flight for the duration of a request."""
        if caller is None:
            yield
            return
        token = _CURRENT.set(caller)
        self._in_flight.append(caller)
        try:
            yield
        finally:
            self._in_flight.remove(caller)
            _CURRENT.reset(token)

    def _caller(self) -> tuple[Caller | None, str]:
        found = _CURRENT.get()
        if found is not None and found in self._in_flight:
            return found, ""
        if len(self._in_flight) == 1:
            return self._in_flight[0], ""
        if not self._in_flight:
            return None, f"MCP server {self.server!r} asked outside any call; nobody can be asked"
        return (
            None,
            f"MCP server {self.server!r} asked during {len(self._in_flight)} calls; cannot tell whose",
        )

    # -- the session's callbacks ------------------------------------------------------------

    async def elicit(self, context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        from mcp_types import ElicitRequestFormParams, ElicitResult

        caller, _ = self._caller()
        if caller is None:
            return ElicitResult(action="decline")
        if not isinstance(params, ElicitRequestFormParams):
            # URL mode sends the user to a page of the server's choosing: not offered to anyone.
            return ElicitResult(action="decline")
        try:
            form = check_form(params.requested_schema)
        except ToolError:
            return ElicitResult(action="decline")
        request = ElicitationRequest(caller.tool, caller.call_id, params.message, form)
        try:
            answer = await caller.run(caller.channel.elicit(request))
        except ToolError:
            answer = Elicitation("decline")
        answer = checked_answer(form, answer)
        content = dict(answer.content) if answer.accepted and answer.content is not None else None
        return ElicitResult(action=answer.action, content=content)

    async def sample(
        self, context: Any, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        from mcp_types import INVALID_REQUEST, CreateMessageResult, ErrorData, TextContent

        if not self.sampling:
            return ErrorData(
                code=INVALID_REQUEST, message=f"sampling is not allowed for MCP server {self.server!r}"
            )
        caller, why = self._caller()
        if caller is None:
            return ErrorData(code=INVALID_REQUEST, message=why)
        try:
            request = SamplingRequest(
                caller.tool,
                caller.call_id,
                tuple(_sampling_message(m) for m in params.messages),
                max(1, min(params.max_tokens, MAX_SAMPLING_TOKENS)),
                params.system_prompt,
                params.temperature,
            )
            sample = await caller.run(caller.channel.sample(request))
        except ToolError as exc:
            return ErrorData(code=INVALID_REQUEST, message=f"sampling failed: {exc}")
        stop = sample.stop_reason if sample.stop_reason in ("endTurn", "stopSequence", "maxTokens") else None
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=sample.text),
            model=sample.model or "tooldeck",
            stop_reason=stop,
        )

    async def list_roots(self, context: Any) -> mcp_types.ListRootsResult:
        from mcp_types import ListRootsResult, Root
        from pydantic import FileUrl

        return ListRootsResult(
            roots=[Root(uri=FileUrl(p.as_uri()), name=p.name or str(p)) for p in self.roots]
        )

    async def log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        caller, _ = self._caller()
        data = params.data
        message = data if isinstance(data, str) else (params.logger or f"MCP server {self.server}")
        level = params.level if params.level in LEVELS else "info"
        if caller is None:
            await ToolChannel().log(LogEntry(f"mcp:{self.server}", "", level, message, None))
            return
        extra = None if isinstance(data, str) else data
        with contextlib.suppress(ToolError):
            await caller.run(caller.channel.log(LogEntry(caller.tool, caller.call_id, level, message, extra)))

    def progress(self, caller: Caller | None) -> Any:
        """A progress callback for one call (None when nobody listens)."""
        if caller is None:
            return None

        async def report(progress: float, total: float | None, message: str | None) -> None:
            with contextlib.suppress(ToolError):
                await caller.run(
                    caller.channel.progress(
                        ProgressReport(caller.tool, caller.call_id, progress, total, message)
                    )
                )

        return report


def _sampling_message(message: mcp_types.SamplingMessage) -> SamplingMessage:
    """A server's sampling message as text; what is not text is named, not passed on."""
    parts: list[str] = []
    for block in message.content_as_list:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')} not shown]")
    text = "\n".join(parts)
    return (
        SamplingMessage("assistant", text) if message.role == "assistant" else SamplingMessage("user", text)
    )
