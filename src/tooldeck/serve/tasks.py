"""MCP's tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for `tooldeck serve`.

A 2026-07-28 client that declares the extension on its request may get a task handle
(`CreateTaskResult`, `resultType: "task"`) instead of the tool's result: the server decides. Here
a call becomes a task when its tool's `task_support` is `required` (always), or `optional` and
the call is still running after `serve.task_after_s`, or the tool calls `ctx.run_as_task()`. The
call then goes on in the background; the client polls `tasks/get` (the result inlined once
`completed`; `failed` only for a JSON-RPC error such as a tool's `ProtocolError`), answers the
questions the tool asks from then on with `tasks/update` (they wait in `inputRequests` while the
task is `input_required`), and may `tasks/cancel` it. Questions asked before the task exists are
`input_required` round trips as for any call, so a tool gathers its input first and then goes on
as a task. A client without the extension never gets a task: an optional tool answers at once,
a required one is refused with -32021, as are the `tasks/*` methods.

Task ids are unguessable (they are the handle: whoever holds one may poll or cancel it, as
anyone holding the server's bearer token may call its tools). Tasks live in this process, each
for `serve.task_ttl_s` from its creation (a task still running then is cancelled), at most
`serve.max_tasks` of them. Progress and log messages of a task go to the tooldeck log (the
extension sends none to the client); a progress message becomes the task's `statusMessage`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tooldeck._utils.logs import get_logger
from tooldeck._utils.text import describe_exception
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    from mcp.server.context import HandlerResult, ServerRequestContext
    from mcp.server.lowlevel.server import Server
    from mcp.shared.exceptions import MCPError

    from tooldeck.core import ToolResult
    from tooldeck.serve.config import ServeConfig

TASKS = "io.modelcontextprotocol/tasks"
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
# How often clients are asked to poll (pollIntervalMs).
POLL_INTERVAL_MS = 500

log = get_logger("tooldeck.serve")
M = TypeVar("M", bound=BaseModel)


def declared(capabilities: Any) -> bool:
    """Whether the request's client capabilities name the tasks extension."""
    extensions = getattr(capabilities, "extensions", None)
    return isinstance(extensions, Mapping) and TASKS in extensions


def missing_extension(what: str) -> MCPError:
    """-32021 for a request that needs the extension the client did not declare."""
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"{what} needs the client's {TASKS} extension, which the request did not declare",
        data={"requiredCapabilities": {"extensions": {TASKS: {}}}},
    )


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(eq=False)
class _Question:
    request: dict[str, Any]  # the server-to-client request, as `inputRequests` carries it
    kind: type[BaseModel]  # the answer's shape (ElicitResult, CreateMessageResult, ListRootsResult)
    answer: asyncio.Future[Any]


@dataclass(eq=False)
class ServedTask:
    """One task: its state as `tasks/get` shows it, and the call running behind it."""

    task_id: str
    tool: str
    ttl_s: float
    created: float = field(default_factory=time.time)
    updated: float = 0.0
    status: TaskStatus = "working"
    message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    runner: asyncio.Task[None] | None = None
    questions: dict[str, _Question] = field(default_factory=dict)
    asked: set[str] = field(default_factory=set)  # every key ever asked (unique over its life)

    def __post_init__(self) -> None:
        self.updated = self.updated or self.created

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    def expired(self, now: float) -> bool:
        return now >= self.created + self.ttl_s

    def envelope(self) -> dict[str, Any]:
        """The `Task` fields (what a `CreateTaskResult` carries besides `resultType`)."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created),
            "lastUpdatedAt": _iso(self.updated),
            "ttlMs": int(self.ttl_s * 1000),
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if self.message:
            task["statusMessage"] = self.message
        return task

    def detailed(self) -> dict[str, Any]:
        """The `DetailedTask` of `tasks/get`: the envelope and what its status carries."""
        task = self.envelope()
        if self.status == "completed" and self.result is not None:
            task["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            task["error"] = self.error
        elif self.status == "input_required":
            task["inputRequests"] = {key: q.request for key, q in self.questions.items()}
        return task

    def _set(self, status: TaskStatus, message: str | None = None) -> None:
        self.status = status
        if message is not None:
            self.message = message
        self.updated = time.time()

    def complete(self, result: dict[str, Any]) -> None:
        if not self.done:
            self.result = result
            self._set("completed")

    def fail(self, error: dict[str, Any]) -> None:
        if not self.done:
            self.error = error
            self._set("failed", str(error.get("message") or "the request failed"))

    def cancel(self, why: str = "cancelled by the client") -> None:
        """Cancel the task (a no-op once it ended): it is `cancelled` at once, and the call stops."""
        if self.done:
            return
        self._set("cancelled", why)
        for question in self.questions.values():
            question.answer.cancel()
        self.questions.clear()
        if self.runner is not None:
            self.runner.cancel()

    def progressed(self, message: str | None) -> None:
        if message and not self.done:
            self.message = message
            self.updated = time.time()

    async def ask(self, key: str, request: BaseModel, kind: type[M]) -> M:
        """A question of the running call, waiting in `inputRequests` until `tasks/update`."""
        if key in self.asked:
            raise ToolError(f"the question key {key!r} is used twice in one task", type="tool_error")
        if self.done:
            raise asyncio.CancelledError
        self.asked.add(key)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        dumped = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        self.questions[key] = _Question(dumped, kind, answer)
        self._set("input_required")
        found: M = await answer
        return found

    def answer(self, responses: Mapping[str, Any]) -> None:
        """The client's answers (`tasks/update`): each to an outstanding question resumes it;
        answers to keys not outstanding are ignored; one that does not fit its question is
        -32602 and nothing is applied."""
        from pydantic import ValidationError

        ready: list[tuple[str, Any]] = []
        for key, response in responses.items():
            question = self.questions.get(key)
            if question is None:
                continue  # never asked, answered already, or superseded: ignored (the spec's SHOULD)
            try:
                ready.append((key, question.kind.model_validate(response)))
            except ValidationError:
                method = question.request.get("method")
                raise _invalid(f"inputResponses[{key!r}] is not an answer to {method}") from None
        for key, value in ready:
            question = self.questions.pop(key)
            if not question.answer.done():
                question.answer.set_result(value)
        if ready and not self.questions and self.status == "input_required":
            self._set("working")


class TaskHandoff:
    """Between a running call and the handler answering it: the call asks to go on as a task
    (`ctx.run_as_task()`), the handler decides, and the call's questions follow the task."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.message: str | None = None
        self.progress: str | None = None  # the call's last progress message before it was a task
        self.task: ServedTask | None = None
        self._decided = asyncio.Event()

    async def request(self, message: str | None) -> bool:
        if not self._decided.is_set():
            self.message = message
            self.asked.set()
            await self._decided.wait()
        return self.task is not None

    def decide(self, task: ServedTask | None) -> None:
        self.task = task
        if task is not None:
            task.message = self.message or self.progress
        self._decided.set()


class TaskParams(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
    task_id: str = Field(alias="taskId")


class UpdateTaskParams(TaskParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


Answer = Callable[["ToolResult"], Awaitable["HandlerResult"]]


class ServedTasks:
    """The tasks of one server: making calls tasks, and the `tasks/get|update|cancel` methods."""

    def __init__(self, config: ServeConfig) -> None:
        self.after_s = config.task_after_s
        self.ttl_s = config.task_ttl_s
        self.max_tasks = config.max_tasks
        self._tasks: OrderedDict[str, ServedTask] = OrderedDict()

    def install(self, server: Server[Any]) -> None:
        server.extensions[TASKS] = {}
        server.add_request_handler("tasks/get", TaskParams, self._get)
        server.add_request_handler("tasks/update", UpdateTaskParams, self._update)
        server.add_request_handler("tasks/cancel", TaskParams, self._cancel)

    # -- calls as tasks ------------------------------------------------------------------------

    async def run(
        self,
        tool: str,
        work: Awaitable[list[ToolResult]],
        handoff: TaskHandoff,
        *,
        required: bool,
        answer: Answer,
        asking: Callable[[], bool],
    ) -> HandlerResult:
        """Answer a call of a task-supporting tool: at once when it ends soon enough (and is not
        required to be a task), else with a task handle while it goes on.

        `answer` turns the call's result into the `tools/call` result; `asking` tells whether the
        call is about to end with `input_required` questions (those go back as a round trip)."""
        job = asyncio.ensure_future(work)
        asked = asyncio.ensure_future(handoff.asked.wait())
        try:
            await asyncio.wait({job, asked}, timeout=self.after_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            asked.cancel()
        if job.done() or asking():
            handoff.decide(None)
            [result] = await job
            if not required:
                return await answer(result)
            task = self._create(tool)
            if task is None:
                raise _busy()
            try:
                reply = await answer(result)
            except Exception as exc:  # boundary: a protocol error of the call fails the task
                task.fail(_error_of(exc))
                return {"resultType": "task", **task.envelope()}
            if _is_input_required(reply):
                self._tasks.pop(task.task_id, None)
                return reply  # questions before the task: a round trip first
            task.complete(_dump(reply))
            return {"resultType": "task", **task.envelope()}
        task = self._create(tool)
        if task is None:  # no room: an optional call goes on in the foreground
            if required:
                job.cancel()
                raise _busy()
            handoff.decide(None)
            [result] = await job
            return await answer(result)
        handoff.decide(task)
        task.runner = asyncio.create_task(self._finish(task, job, answer), name=f"task {task.task_id}")
        return {"resultType": "task", **task.envelope()}

    async def _finish(self, task: ServedTask, job: asyncio.Future[list[ToolResult]], answer: Answer) -> None:
        try:
            [result] = await job
            reply = await answer(result)
        except asyncio.CancelledError:
            job.cancel()
            task.cancel()
            return
        except Exception as exc:  # boundary: whatever failed is the task's error, not the server's
            task.fail(_error_of(exc))
            return
        if _is_input_required(reply):
            task.fail({"code": -32603, "message": "the task's call asked for input as a round trip"})
            return
        task.complete(_dump(reply))

    def _create(self, tool: str) -> ServedTask | None:
        self._purge()
        if len(self._tasks) >= self.max_tasks:
            finished = next((key for key, t in self._tasks.items() if t.done), None)
            if finished is None:
                return None
            del self._tasks[finished]
        task = ServedTask(secrets.token_urlsafe(24), tool, self.ttl_s)
        self._tasks[task.task_id] = task
        return task

    def _purge(self) -> None:
        now = time.time()
        for key in [key for key, t in self._tasks.items() if t.expired(now)]:
            self._tasks.pop(key).cancel("its time to live ran out")

    def lookup(self, task_id: str) -> ServedTask:
        self._purge()
        task = self._tasks.get(task_id)
        if task is None:
            raise _invalid(f"no task {task_id!r} (unknown, or its time to live ran out)")
        return task

    async def close(self) -> None:
        """Cancel every running task (the server is stopping)."""
        runners = [t.runner for t in self._tasks.values() if t.runner is not None and not t.done]
        for task in self._tasks.values():
            task.cancel("the server stopped")
        for runner in runners:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner

    # -- the methods -----------------------------------------------------------------------------

    def _admit(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> ServedTask:
        _check_name_header(ctx, params.task_id)
        if not declared(ctx.session.client_capabilities):
            raise missing_extension(ctx.method or "this method")
        return self.lookup(params.task_id)

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        return {"resultType": "complete", **self._admit(ctx, params).detailed()}

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams) -> dict[str, Any]:
        self._admit(ctx, params).answer(params.input_responses)
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        self._admit(ctx, params).cancel()
        return {"resultType": "complete"}


def _check_name_header(ctx: ServerRequestContext[Any, Any], task_id: str) -> None:
    """Over streamable HTTP at 2026-07-28, `Mcp-Name` must carry the task id (SEP-2663's routing
    header); missing or different is -32020 (HeaderMismatch)."""
    from mcp.shared.exceptions import MCPError
    from mcp.shared.inbound import decode_header_value
    from mcp_types.jsonrpc import HEADER_MISMATCH
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    headers = getattr(ctx.request, "headers", None)
    if headers is None or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return  # stdio, or a handshake-era connection: no routing headers
    sent = headers.get("mcp-name")
    value = decode_header_value(sent) if sent is not None else None
    if value is None or value.strip() != task_id:
        raise MCPError(code=HEADER_MISMATCH, message="the Mcp-Name header does not match params.taskId")


def _invalid(message: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INVALID_PARAMS

    return MCPError(code=INVALID_PARAMS, message=message)


def _busy() -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INTERNAL_ERROR

    return MCPError(
        code=INTERNAL_ERROR, message="the server holds as many tasks as it keeps (serve.max_tasks)"
    )


def _error_of(exc: BaseException) -> dict[str, Any]:
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError):
        error: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.data is not None:
            error["data"] = exc.data
        return error
    log.warning("a task's call failed inside the server: %s", describe_exception(exc))
    return {"code": -32603, "message": f"internal error: {describe_exception(exc)}"}


def _dump(reply: HandlerResult) -> dict[str, Any]:
    if isinstance(reply, BaseModel):
        dumped: dict[str, Any] = reply.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped
    return dict(reply or {})


def _is_input_required(reply: HandlerResult) -> bool:
    if isinstance(reply, BaseModel):
        return type(reply).__name__ == "InputRequiredResult"
    return isinstance(reply, Mapping) and reply.get("resultType") == "input_required"
