"""The call path as a chain of middleware.

A middleware is any object with

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult

It may rewrite the arguments (`await call_next(call.replace(arguments=...))`), answer itself
without running the tool (`return ToolResult(call_id=call.id, name=call.name, content=...)`),
or change the result (`(await call_next(call)).replace(content=...)`). The first listed is the
outermost. tooldeck's own steps are links of the same chain, each with a name
(`tooldeck._core.link_names`):

    trace -> user middleware ... -> validate -> approvals -> effects -> frame
        -> truncate -> budget -> checkpoint -> run

A user's middleware placed nowhere is outside every link but `trace`, so it sees the model's
raw arguments, and arguments it rewrites are validated and judged by the policy like the
model's own; one placed `after: validate` (`{"use": middleware, "after": "validate"}`, in code
as in config) sees them validated and coerced. Every call reaching the chain gets one result
back through it, refusals included. A call naming no tool, or whose arguments are not a JSON
object, is answered before the chain (there is no tool to hand a middleware).
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast, runtime_checkable

from tooldeck._core.content import TextContent
from tooldeck._core.execution.types import ToolCall, ToolResult, ValidatedCall
from tooldeck._core.link_names import placement_problem
from tooldeck._core.tool import Tool

if TYPE_CHECKING:
    from tooldeck._core.execution.results import SpillStore

CallNext = Callable[["ToolCallRequest"], Awaitable[ToolResult]]
"""The rest of the chain a middleware hands a call on to: `await call_next(call)` is its result."""


@runtime_checkable
class Middleware(Protocol):
    """One link of the call path (see the module docstring)."""

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult: ...


@dataclass(slots=True)
class ToolCallRequest:
    """One call on its way through the chain: the model's call id, the tool's exact name, the
    parsed arguments, the tool itself and the session it runs in. Treat it as read-only: a
    changed call is `call.replace(arguments=...)`."""

    id: str
    name: str
    arguments: dict[str, Any]
    tool: Tool
    session_id: str | None = None
    # The executor's own: the arguments as validated (None until the validation link ran, or
    # after `replace(arguments=...)`), and the batch the call belongs to.
    validated: ValidatedCall | None = field(default=None, repr=False, compare=False)
    batch: Any = field(default=None, repr=False, compare=False)
    started: float = field(default=0.0, repr=False, compare=False)
    # Set when the model's name was normalised to the tool's exact one (the result says so).
    note: str | None = field(default=None, repr=False, compare=False)
    # The call as the model made it (None once the arguments were replaced).
    raw: ToolCall | None = field(default=None, repr=False, compare=False)
    # Services offered to this call only, over the session's (a link's: `effects` offers the
    # bounds the call's effects may reach); a tool asks for them as for any other.
    services: Mapping[type, object] | None = field(default=None, repr=False, compare=False)

    def replace(self, *, arguments: dict[str, Any]) -> ToolCallRequest:
        """The same call with other arguments (validated and judged again further in)."""
        if not isinstance(arguments, dict):
            raise TypeError(f"arguments must be a dict, got {type(arguments).__name__}")
        return dataclasses.replace(self, arguments=arguments, validated=None, raw=None)

    def offering(self, kind: type, value: object) -> ToolCallRequest:
        """The same call with `value` offered to its tool as the service `kind`."""
        return dataclasses.replace(self, services={**(self.services or {}), kind: value})

    def validated_as(self, validated: ValidatedCall) -> ToolCallRequest:
        """The same call carrying its validated, coerced arguments (the `validate` link's)."""
        return ToolCallRequest(
            self.id,
            self.name,
            validated.arguments,
            self.tool,
            self.session_id,
            validated,
            self.batch,
            self.started,
            self.note,
            self.raw,
            self.services,
        )


class Link(abc.ABC):
    """One of tooldeck's own links: made once around the next one (`bind`), so a call pays one
    frame per link; `name` is where a user's middleware can be placed."""

    __slots__ = ()
    name: ClassVar[str]

    @abc.abstractmethod
    def bind(self, call_next: CallNext) -> CallNext:
        """The handler of a call: this link's work around `call_next`."""

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await self.bind(call_next)(call)


@dataclass(frozen=True, slots=True)
class Placed:
    """A user's middleware and where it goes: just outside (`before`) or just inside (`after`)
    the link so named; neither, outside every link but `trace`."""

    middleware: Middleware
    before: str | None = None
    after: str | None = None


def chain(links: Sequence[Middleware], last: CallNext) -> CallNext:
    """`links` around `last`, the first outermost; built once, then called per call. A link
    with a `bind(call_next)` method makes its own handler around the next one (one coroutine
    frame a call instead of two); any other goes through its `on_call`."""
    handler = last
    for link in reversed(links):
        bind = getattr(link, "bind", None)
        handler = bind(handler) if callable(bind) else _bound(link, handler)
    return handler


def _bound(link: Middleware, call_next: CallNext) -> CallNext:
    on_call = link.on_call

    async def handler(call: ToolCallRequest) -> ToolResult:
        return await on_call(call, call_next)

    handler.__qualname__ = f"{type(link).__qualname__}.on_call"
    return handler


def placed_middleware(items: Sequence[object], where: str = "middleware") -> list[Placed]:
    """The items - middleware, `Placed`, or `{"use": middleware, "before"/"after": link}` - as
    placed middleware; a TypeError or ValueError names the key of the one that is wrong."""
    out: list[Placed] = []
    unchecked: list[tuple[int, object]] = []
    for index, item in enumerate(items):
        if isinstance(item, Placed):
            out.append(item)  # placed by `placed_middleware` or the config: checked then
            continue
        elif isinstance(item, Mapping):
            unknown = sorted(set(item) - {"use", "before", "after"})
            if unknown or "use" not in item:
                what = f"unknown key {unknown[0]!r}" if unknown else "no 'use' key"
                raise TypeError(f"{where}[{index}]: {what} (an entry is {{use, before or after}})")
            placed = Placed(item["use"], item.get("before"), item.get("after"))
        else:
            placed = Placed(cast("Middleware", item))  # checked just below
        problem = placement_problem(placed.before, placed.after)
        if problem is not None:
            raise ValueError(f"{where}[{index}].{problem[0]}: {problem[1]}")
        unchecked.append((index, placed.middleware))
        out.append(placed)
    for index, middleware in unchecked:
        wrong = _not_middleware(middleware)
        if wrong is not None:
            raise TypeError(f"{where}[{index}] ({type(middleware).__name__}){wrong}")
    return out


def check_middleware(items: Sequence[object], where: str = "middleware") -> list[Middleware]:
    """The items as middleware, or a TypeError naming the one that is not (by its position)."""
    out: list[Middleware] = []
    for index, item in enumerate(items):
        problem = _not_middleware(item)
        if problem is not None:
            raise TypeError(f"{where}[{index}] ({type(item).__name__}){problem}")
        assert isinstance(item, Middleware)
        out.append(item)
    return out


def _not_middleware(item: object) -> str | None:
    if not isinstance(item, Middleware) or not callable(item.on_call):
        return " is not a middleware: it needs `async def on_call(self, call, call_next)`"
    if not inspect.iscoroutinefunction(item.on_call):
        return ": on_call must be `async def` (it awaits call_next)"
    return None


class TruncateResults:
    """Cuts a long result for the model: its head and its tail, with a marker between them
    saying what was left out; the full text is kept in the session's spill store, readable in
    pages with `read_result`.

    The limit is the tool's `max_result_chars`, else `default_limit`; `tail_share` of it goes
    to the end of the text (logs and test runs put their verdict last). Error results pass
    unchanged (their envelope carries its own capped output). tooldeck's own is the `truncate`
    link; one given as a user's middleware cuts where it is placed.
    """

    name: ClassVar[str] = "truncate"

    def __init__(self, default_limit: int, spill: SpillStore | None, *, tail_share: float = 0.25) -> None:
        if default_limit < 1:
            raise ValueError("default_limit must be at least 1 character")
        if not 0 <= tail_share < 1:
            raise ValueError("tail_share must be at least 0 and below 1")
        self.default_limit = default_limit
        self.spill = spill
        self.tail_share = tail_share

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await self.bind(call_next)(call)

    def bind(self, call_next: CallNext) -> CallNext:
        default, cut = self.default_limit, self.cut

        async def truncated(call: ToolCallRequest) -> ToolResult:
            result = await call_next(call)
            limit = call.tool.max_result_chars or default
            if result.error is not None:
                return result
            if result.blocks:
                result = self.cut_blocks(result, limit)
            if len(result.content) <= limit:
                return result
            return cut(result, limit)

        return truncated

    def cut(self, result: ToolResult, limit: int) -> ToolResult:
        body, kept = self._cut_text(result.call_id, result.content, limit)
        meta = {**result.meta, "result_id": kept} if kept is not None else result.meta
        return result.replace(content=body, meta=meta)

    def cut_blocks(self, result: ToolResult, limit: int) -> ToolResult:
        """Each text block over `limit` cut on its own (its full text kept like a whole result)."""
        if not any(isinstance(b, TextContent) and len(b.text) > limit for b in result.blocks):
            return result
        blocks = tuple(
            TextContent(self._cut_text(f"{result.call_id}-{i}", b.text, limit)[0])
            if isinstance(b, TextContent) and len(b.text) > limit
            else b
            for i, b in enumerate(result.blocks)
        )
        return result.replace(blocks=blocks)

    def _cut_text(self, call_id: str, text: str, limit: int) -> tuple[str, str | None]:
        kept = self.spill.save(call_id, text) if self.spill is not None else None
        tail_chars = int(limit * self.tail_share)
        head = _line_end(text, limit - tail_chars)
        start = _line_start(text, len(text) - tail_chars) if tail_chars else len(text)
        tail = len(text) - start
        shown = f"characters 0-{head}" + (f" and {start}-{len(text)}" if tail else "")
        if kept is not None:
            marker = (
                f"\n\n[result truncated: showing {shown} of {len(text)}. The full result is kept as "
                f"id {kept!r}: call read_result(id={kept!r}, offset={head}) to read the rest in pages.]\n\n"
            )
        else:
            marker = f"\n\n[result truncated: showing {shown} of {len(text)}; the rest was dropped.]\n\n"
        if text[:head].endswith("\n"):
            marker = marker[1:]
        return text[:head] + marker.rstrip("\n") + ("\n\n" + text[start:] if tail else ""), kept


def _line_end(text: str, at: int) -> int:
    """`at`, moved back to just after a line break in the last fifth before it, if there is one."""
    cut = text.rfind("\n", at - at // 5, at)
    return cut + 1 if cut >= 0 else at


def _line_start(text: str, at: int) -> int:
    """`at`, moved on to just after a line break in the next fifth of what follows, if any."""
    cut = text.find("\n", at, at + (len(text) - at) // 5 + 1)
    return cut + 1 if 0 <= cut < len(text) - 1 else at


__all__ = [
    "CallNext",
    "Link",
    "Middleware",
    "Placed",
    "ToolCallRequest",
    "TruncateResults",
    "chain",
    "check_middleware",
    "placed_middleware",
]
