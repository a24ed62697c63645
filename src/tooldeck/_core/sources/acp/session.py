"""One ACP prompt: start the agent, open a session in the workspace, prompt, collect, stop.

The agent runs over stdio in its own process group, with a small allow-list of the environment
plus the config's `env`. tooldeck is the ACP *client*: it offers the agent the workspace's text
files (`fs/read_text_file`, `fs/write_text_file` through tooldeck's file layer, so the writes
are confined and checkpointed: `files.py`) but no terminal, collects the agent's streamed message chunks into the answer, and hands every
permission request to a `PermissionAsker` (tooldeck's approvals; no asker means no). When the
call ends - answered, failed, timed out or cancelled - the session is cancelled and the whole
process group is killed, so nothing the agent started outlives the call.

The `acp` package (agent-client-protocol) is imported here only, when a call runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tooldeck.errors import StartupFailed as StartupFailed
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    from acp import Client
    from acp.schema import (
        PermissionOption,
        ReadTextFileResponse,
        RequestPermissionResponse,
        ToolCallUpdate,
        WriteTextFileResponse,
    )

    from tooldeck._core.sources.acp.files import AgentFiles

# Environment variables an agent inherits from tooldeck's own environment; the rest is not passed.
INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")
# The agent's stderr kept for error messages (the tail), in characters.
STDERR_TAIL = 2000
# A generous line limit: agents may stream large chunks in one JSON-RPC message.
STREAM_LIMIT = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class PermissionQuestion:
    """What an agent asks permission for, in words a person can judge."""

    agent: str
    title: str
    kind: str
    details: Mapping[str, Any]


# Answers a permission question: True to allow, False to refuse.
PermissionAsker = Callable[[PermissionQuestion], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """How to start one agent and how long it may take."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    startup_timeout_s: float = 30.0


class _Client:
    """tooldeck's side of the connection: collects the answer and routes permission requests."""

    def __init__(self, agent: str, ask: PermissionAsker | None, files: AgentFiles | None = None) -> None:
        self.agent = agent
        self.ask = ask
        self.files = files
        self.chunks: list[str] = []
        self.asked: list[tuple[str, bool]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if getattr(update, "session_update", None) != "agent_message_chunk":
            return
        text = getattr(update.content, "text", None)
        if isinstance(text, str):
            self.chunks.append(text)

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        from acp.schema import ReadTextFileResponse

        files = self._files()
        try:
            return ReadTextFileResponse(content=await files.read(path, line, limit))
        except ToolError as exc:
            raise _request_error(exc) from None

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        from acp.schema import WriteTextFileResponse

        files = self._files()
        try:
            await files.write(path, content)
        except ToolError as exc:
            raise _request_error(exc) from None
        return WriteTextFileResponse()

    def _files(self) -> AgentFiles:
        if self.files is None:
            from acp import RequestError

            raise RequestError.method_not_found("fs")
        return self.files

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        title = tool_call.title or f"tool call {tool_call.tool_call_id}"
        question = PermissionQuestion(
            self.agent,
            title,
            tool_call.kind or "other",
            {"title": title, "kind": tool_call.kind or "other", "options": [o.name for o in options]},
        )
        allowed = await self.ask(question) if self.ask is not None else False
        self.asked.append((title, allowed))
        wanted = ("allow_once", "allow_always") if allowed else ("reject_once", "reject_always")
        for kind in wanted:
            for option in options:
                if option.kind == kind:
                    return RequestPermissionResponse(
                        outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
                    )
        # No option of the wanted kind: refusing is the only safe answer.
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _request_error(exc: ToolError) -> Exception:
    """A refused file request as the JSON-RPC error the agent reads (ACP's codes)."""
    from acp import RequestError

    from tooldeck._core.sources.acp.files import error_code

    return RequestError(error_code(exc), str(exc))


async def run_prompt(
    spec: AgentSpec,
    prompt: str,
    workspace: Path,
    ask: PermissionAsker | None,
    files: AgentFiles | None = None,
) -> str:
    """Run one prompt to its end and return the agent's answer; failures are `ToolError`s."""
    from acp import PROTOCOL_VERSION, connect_to_agent, text_block
    from acp.schema import ClientCapabilities, FileSystemCapabilities

    process = await _spawn(spec, workspace)
    stderr: list[str] = []
    drain = asyncio.create_task(_drain(process, stderr))
    client = _Client(spec.name, ask, files)
    assert process.stdin is not None and process.stdout is not None
    # Only what tooldeck offers is implemented (text files when given, no terminal): the SDK
    # answers the rest with method-not-found, and the capabilities sent at initialize say so.
    offered = files is not None
    capabilities = ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=offered, write_text_file=offered), terminal=False
    )
    conn = connect_to_agent(cast("Client", client), process.stdin, process.stdout)
    session_id: str | None = None
    interrupted = False
    try:
        try:
            async with asyncio.timeout(spec.startup_timeout_s):
                await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities)
                session_id = (await conn.new_session(cwd=str(workspace))).session_id
        except TimeoutError:
            raise StartupFailed(
                f"ACP agent {spec.name!r} did not open a session within {spec.startup_timeout_s:g} s"
                + _tail(stderr)
            ) from None
        except Exception as exc:  # boundary: whatever went wrong while starting is a startup failure
            raise StartupFailed(await _failure(spec, process, stderr, "could not start", exc)) from None
        try:
            response = await _prompt(conn, process, session_id, [text_block(prompt)])
        except ToolError:
            raise
        except Exception as exc:  # boundary: a broken connection or agent error ends the call
            raise ToolError(await _failure(spec, process, stderr, "failed", exc), type="tool_error") from None
        answer = "".join(client.chunks)
        if response.stop_reason == "refusal":
            raise ToolError(f"ACP agent {spec.name!r} refused the prompt" + (f": {answer}" if answer else ""))
        if response.stop_reason == "cancelled":
            raise ToolError(f"ACP agent {spec.name!r} cancelled the turn", type="cancelled")
        if response.stop_reason in ("max_tokens", "max_turn_requests"):
            answer += f"\n[note: the agent stopped early ({response.stop_reason})]"
        return answer
    except asyncio.CancelledError:  # timed out or cancelled: tell the agent before it is stopped
        interrupted = True
        raise
    finally:
        await _stop(conn, process, session_id if interrupted else None, drain)


async def _prompt(conn: Any, process: asyncio.subprocess.Process, session_id: str, blocks: list[Any]) -> Any:
    """The prompt request, raced against the agent's exit (a crash must not leave the call hanging)."""
    request = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=blocks))
    exited = asyncio.ensure_future(process.wait())
    try:
        done, _ = await asyncio.wait({request, exited}, return_when=asyncio.FIRST_COMPLETED)
        if request in done:
            return request.result()
        # Give a response already on its way a moment to arrive before calling it a crash.
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(asyncio.shield(request), 0.2)
        raise ConnectionError(f"the agent exited with code {process.returncode} during the prompt")
    finally:
        for task in (request, exited):
            task.cancel()
        await asyncio.gather(request, exited, return_exceptions=True)


async def _spawn(spec: AgentSpec, workspace: Path) -> asyncio.subprocess.Process:
    env = {k: os.environ[k] for k in INHERITED_ENV if k in os.environ}
    env.update(spec.env)
    try:
        return await asyncio.create_subprocess_exec(
            spec.command,
            *spec.args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=str(workspace),
            start_new_session=True,
            limit=STREAM_LIMIT,
        )
    except OSError as exc:
        raise StartupFailed(
            f"ACP agent {spec.name!r} could not be started ({spec.command}): {exc.strerror or exc}"
        ) from None


async def _drain(process: asyncio.subprocess.Process, into: list[str]) -> None:
    """Read the agent's stderr as it comes (a full pipe would block it), keeping the tail."""
    assert process.stderr is not None
    while chunk := await process.stderr.read(4096):
        into.append(chunk.decode("utf-8", "replace"))
        text = "".join(into)
        into[:] = [text[-STDERR_TAIL:]]


async def _failure(
    spec: AgentSpec, process: asyncio.subprocess.Process, stderr: list[str], what: str, exc: BaseException
) -> str:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 0.5)
    code = process.returncode
    status = f"exited with code {code}" if code is not None else f"{type(exc).__name__}: {exc}"
    return f"ACP agent {spec.name!r} {what}: {status}" + _tail(stderr)


def _tail(stderr: list[str]) -> str:
    text = "".join(stderr).strip()
    return f"\nstderr (last lines):\n{text[-STDERR_TAIL:]}" if text else ""


async def _stop(
    conn: Any, process: asyncio.subprocess.Process, session_id: str | None, drain: asyncio.Task[None]
) -> None:
    """Cancel the session when given (politely, briefly), close the connection, kill the process group.

    Runs when the call is cancelled or timed out too, and must finish (it is short and bounded):
    a cancellation arriving meanwhile is held back until the agent is gone, then re-raised.
    """
    cleanup = asyncio.ensure_future(_stop_now(conn, process, session_id, drain))
    interrupted = False
    while not cleanup.done():
        try:
            await asyncio.shield(cleanup)
        except asyncio.CancelledError:
            interrupted = True
    if interrupted:
        raise asyncio.CancelledError


async def _stop_now(
    conn: Any, process: asyncio.subprocess.Process, session_id: str | None, drain: asyncio.Task[None]
) -> None:
    if session_id is not None and process.returncode is None:
        with contextlib.suppress(Exception):  # best effort: the agent may be gone
            await asyncio.wait_for(conn.cancel(session_id=session_id), 0.2)
        # A moment to wind down after the cancel (ACP agents end the turn as "cancelled").
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(process.wait()), 0.3)
    with contextlib.suppress(Exception):  # best effort: the connection may already be broken
        await asyncio.wait_for(conn.close(), 0.5)
    await kill_group(process)
    drain.cancel()
    await asyncio.gather(drain, return_exceptions=True)


async def kill_group(process: asyncio.subprocess.Process, *, grace_s: float = 0.3) -> None:
    """SIGTERM the agent's process group, then SIGKILL what is left after `grace_s`; reap the agent."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace_s)
        if sig == signal.SIGTERM and not _group_alive(process.pid):
            return


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
