"""The inspector's JSON API: the records the commands print, served over one live deck.

    GET  /api/info                  platforms, dialects, the default platform
    GET  /api/loadout               the rows of `explain --json` (?platform= &dialect= &strict=)
    GET  /api/tools/<name>          one tool: its entry of `tools --dialect X --json`, tokens, notes
    POST /api/call                  {"name", "arguments"} -> what `call --json` prints
    GET  /api/approvals             what waits in the page: approvals and forms ("kind")
    POST /api/approvals/<id>        {"decision": "approve" | "deny", "scope"} answers an approval
    POST /api/forms/<id>            {"action": "accept" | "decline" | "cancel", "content"} a form
    GET  /api/mcp                   `mcp list --json`
    GET  /api/sessions[/<id>]       `sessions list --json` / `sessions show ID --json`
    GET  /api/audit                 the approvals audit log, newest first
    GET  /api/checkpoints           `checkpoints --json`
    GET  /api/pending               calls of stored sessions waiting for approval
    POST /api/sessions/<id>/decide  approve / deny / edit one of them: the run resumes (see `pending`)

The deck's blocking work (assembly waits for checks and MCP servers; rendering counts tokens)
runs in worker threads, off the event loop that serves the page and, with MCP servers, their
sessions. Calls go through one tooldeck session of the inspector (per platform), so an approval
given "for the session" holds for its later calls, as in any session.
"""

from __future__ import annotations

import asyncio
import difflib
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tooldeck._utils.text import json_text
from tooldeck.errors import CheckpointError, ConfigError, DialectError, SessionError, ToolsetError
from tooldeck.inspect import pending, records
from tooldeck.inspect.approvals import PageApprover

if TYPE_CHECKING:
    from tooldeck import Deck
    from tooldeck.core import Fate, Loadout, Session

DIALECTS = ("openai", "responses", "anthropic", "gemini")
# The largest request body accepted (a call's arguments, an answer).
MAX_BODY_BYTES = 4 * 1024 * 1024

Handler = Callable[[Request], Awaitable[Response]]


class _ApiError(Exception):
    """A request the API refuses: the status and a message naming the problem."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def json_response(value: Any, status: int = 200) -> Response:
    # json_text: lone surrogates and NaN are made valid JSON (tool text may hold anything).
    return Response(json_text(value, indent=None), status, media_type="application/json")


def guarded(handler: Handler) -> Handler:
    """A handler whose _ApiError and config problems become a JSON error, never a traceback."""

    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except _ApiError as exc:
            return JSONResponse({"error": str(exc)}, exc.status)
        except (ConfigError, ToolsetError, DialectError) as exc:
            return JSONResponse({"error": f"config error: {exc}"}, 400)
        except (SessionError, CheckpointError) as exc:
            return JSONResponse({"error": str(exc)}, 500)

    return run


class InspectorApi:
    """The API's handlers over one deck; `platform` is the one shown first (None: config's)."""

    def __init__(self, deck: Deck, *, platform: str | None = None) -> None:
        self.deck = deck
        self.platform = platform
        self.approver = PageApprover(timeout_s=deck.config.approvals.timeout_s)
        self._sessions: dict[str | None, Session] = {}
        self._calls = itertools.count(1)

    # -- helpers ---------------------------------------------------------------------------

    def _platform(self, request: Request) -> str | None:
        return request.query_params.get("platform") or self.platform

    def _dialect(self, request: Request) -> str:
        dialect = request.query_params.get("dialect", "openai")
        if dialect not in DIALECTS:
            raise _ApiError(400, f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
        return dialect

    def _strict(self, request: Request) -> bool:
        given = request.query_params.get("strict")
        if given is None:
            return self.deck.config.dialects.openai.strict
        if given not in ("0", "1", "true", "false"):
            raise _ApiError(400, f"strict must be 0, 1, true or false, got {given!r}")
        return given in ("1", "true")

    def _fresh_loadout(self, platform: str | None) -> Loadout:
        """The loadout as a new `tooldeck tools` would see it: checks asked again."""
        self.deck.invalidate()
        return self.deck.loadout(platform)

    def session(self, platform: str | None) -> Session:
        session = self._sessions.get(platform)
        if session is None:
            session = self._sessions[platform] = self.deck.session(
                platform=platform, approver=self.approver, session_id="inspect"
            )
        return session

    # -- the loadout and its tools ---------------------------------------------------------

    async def info(self, request: Request) -> Response:
        config = self.deck.config
        platforms = sorted(config.platform_toolsets) or [config.platform]
        return json_response(
            {
                "platform": self.platform or config.platform,
                "platforms": platforms,
                "dialects": list(DIALECTS),
                "strict": config.dialects.openai.strict,
                "model": config.model.name,
            }
        )

    async def loadout(self, request: Request) -> Response:
        platform, dialect, strict = self._platform(request), self._dialect(request), self._strict(request)
        return json_response(await asyncio.to_thread(self._loadout_rows, platform, dialect, strict))

    def _loadout_rows(self, platform: str | None, dialect: str, strict: bool) -> list[dict[str, Any]]:
        from tooldeck.core import tool_costs

        loadout = self._fresh_loadout(platform)
        costs = tool_costs(loadout, dialect, strict=strict, profile=self.deck.config.model.name)
        return records.explain_records(self.deck, loadout.fates(), loadout, costs)

    async def tool(self, request: Request) -> Response:
        name = request.path_params["name"]
        platform, dialect, strict = self._platform(request), self._dialect(request), self._strict(request)
        return json_response(await asyncio.to_thread(self._tool, name, platform, dialect, strict))

    def _tool(self, name: str, platform: str | None, dialect: str, strict: bool) -> dict[str, Any]:
        from tooldeck.core import render_loadout, tool_costs

        loadout = self.deck.loadout(platform)
        fates: dict[str, Fate] = {}
        for f in loadout.fates():  # a name twice (the dedup gate's loser): the one that won
            fates.setdefault(f.name, f)
        fate = fates.get(name)
        if fate is None:
            close = difflib.get_close_matches(name, sorted(fates), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise _ApiError(404, f"no candidate tool named {name!r}{hint}")
        profile = self.deck.config.model.name
        costs = tool_costs(loadout, dialect, strict=strict, profile=profile)
        [row] = records.explain_records(self.deck, [fate], loadout, costs)
        entry = records.rendered_entry(
            loadout, render_loadout(loadout, dialect, strict=strict, profile=profile), name
        )
        shown = fate.status == "exposed" or fate.status == "deferred"
        return {
            **row,
            "dialect": dialect,
            "strict": strict,
            "description": loadout.description(name) if shown else fate.tool.description,
            "parameters": fate.tool.parameters,
            "entry": entry,
        }

    # -- calls and approvals ---------------------------------------------------------------

    async def call(self, request: Request) -> Response:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise _ApiError(400, 'the body must be a JSON object {"name": ..., "arguments": {...}}')
        name, arguments = body.get("name"), body.get("arguments", {})
        if not isinstance(name, str) or not name:
            raise _ApiError(400, '"name" must be the tool\'s name, a non-empty string')
        if arguments is not None and not isinstance(arguments, dict | str):
            raise _ApiError(
                400, '"arguments" must be an object, or the JSON text of one, as a model sends it'
            )
        platform = body.get("platform", self.platform)
        if platform is not None and not isinstance(platform, str):
            raise _ApiError(400, '"platform" must be a string')
        from tooldeck.core import ToolCall

        # Assembled off the loop: a source still connecting may be waited for (as `tooldeck call`).
        loadout = await asyncio.to_thread(self.deck.loadout, platform, calling=[name])
        call = ToolCall(f"inspect_{next(self._calls)}", name, arguments)
        [result] = await self.session(platform).execute([call], loadout=loadout)
        return json_response(records.call_record(result))

    async def approvals(self, request: Request) -> Response:
        return json_response(self.approver.pending())

    async def answer(self, request: Request) -> Response:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise _ApiError(400, 'the body must be a JSON object {"decision": "approve" | "deny"}')
        try:
            found = self.approver.answer(
                request.path_params["id"], str(body.get("decision")), str(body.get("scope", "once"))
            )
        except ValueError as exc:
            raise _ApiError(400, str(exc)) from None
        if not found:
            raise _ApiError(404, "no approval waits under that id (answered already, or timed out)")
        return json_response({"answered": True})

    async def answer_form(self, request: Request) -> Response:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise _ApiError(
                400,
                'the body must be a JSON object {"action": "accept" | "decline" | "cancel", "content": {...}}',
            )
        try:
            found = self.approver.answer_form(
                request.path_params["id"], str(body.get("action")), body.get("content")
            )
        except ValueError as exc:
            raise _ApiError(400, str(exc)) from None
        if not found:
            raise _ApiError(404, "no form waits under that id (answered already, or timed out)")
        return json_response({"answered": True})

    # -- MCP servers, sessions, the audit log, checkpoints -----------------------------------

    async def mcp(self, request: Request) -> Response:
        statuses = await asyncio.to_thread(records.deck_server_statuses, self.deck)
        return json_response([s.to_json() for s in statuses])

    async def sessions(self, request: Request) -> Response:
        return json_response(await asyncio.to_thread(self._sessions_list))

    def _sessions_list(self) -> list[dict[str, Any]]:
        from tooldeck.agent.services import sessions_db
        from tooldeck.agent.sessions import SessionStore

        path = sessions_db(self.deck.config)
        if not path.exists():  # looking creates nothing
            return []
        with SessionStore(path) as store:
            return [records.session_summary_record(r) for r in store.list_sessions(include_children=True)]

    async def session_detail(self, request: Request) -> Response:
        return json_response(await asyncio.to_thread(self._session_detail, request.path_params["id"]))

    def _session_detail(self, session_id: str) -> dict[str, Any]:
        from tooldeck.agent.services import sessions_db
        from tooldeck.agent.sessions import SessionStore

        path = sessions_db(self.deck.config)
        if not path.exists():
            raise _ApiError(404, "no sessions are stored yet")
        with SessionStore(path) as store:
            try:
                stored = store.load(session_id)
            except SessionError as exc:
                raise _ApiError(404, str(exc)) from None
        turns = records.turn_checkpoints(stored, self.deck.checkpoints(session_id=stored.id))
        return records.session_record(stored, turns)

    async def pending(self, request: Request) -> Response:
        return json_response(await asyncio.to_thread(pending.pending_calls, self.deck))

    async def decide(self, request: Request) -> Response:
        from tooldeck.errors import DecisionError, ModelError, ModelNotConfigured

        try:
            call_id, decision = pending.decision_of(await _json_body(request))
        except DecisionError as exc:  # the body makes no decision: the request is wrong
            raise _ApiError(400, str(exc)) from None
        try:
            outcome = await pending.resume_with(self.deck, request.path_params["id"], call_id, decision)
        except DecisionError as exc:
            raise _ApiError(409, f"decision refused, nothing was run: {exc}") from None
        except SessionError as exc:
            raise _ApiError(404, str(exc)) from None
        except ModelNotConfigured as exc:
            raise _ApiError(400, str(exc)) from None
        except ModelError as exc:
            raise _ApiError(502, f"model error: {exc}") from None
        return json_response(outcome)

    async def audit(self, request: Request) -> Response:
        path = records.audit_log_path(self.deck.config)
        return json_response(await asyncio.to_thread(records.audit_entries, path))

    async def checkpoints(self, request: Request) -> Response:
        found = await asyncio.to_thread(self.deck.checkpoints)
        return json_response([c.to_json() for c in found])


async def _json_body(request: Request) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _ApiError(413, f"the body is over {MAX_BODY_BYTES} bytes")
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise _ApiError(413, f"the body is over {MAX_BODY_BYTES} bytes")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise _ApiError(400, f"the body is not JSON: {exc}") from None
