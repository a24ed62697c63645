"""How a running tool talks back to whoever runs it: progress, log messages, questions to the
user (elicitation) and questions to a model (sampling), in MCP's vocabulary.

A handler reaches it through its `ToolContext` (`await ctx.report_progress(3, 10)`, `await
ctx.log("info", "...")`, `await ctx.elicit("...", schema)`, `await ctx.sample("...")`; from a
synchronous handler's thread the `_sync` twins). The layer running the call offers the
`ToolChannel` that answers: `tooldeck serve` sends MCP notifications and requests to its client,
the agent loop emits events and asks its own model, the executor asks the session's approver.
This base is what a call gets where nobody listens: progress and logs go to tooldeck's log, a
question is declined, sampling is an error that says why.

Elicitation forms are MCP's restricted schemas: a flat object whose properties are strings
(with `format`, lengths, `default`), numbers or integers (bounds, `default`), booleans
(`default`), single-select enums (`enum`, or `oneOf` of `{const, title}`, SEP-1330) and
multi-select arrays of such enums; every field may carry a `default` (SEP-1034). A form that is
not of that shape is refused before anyone is asked, and an accepted answer that does not match
its form is not handed to the tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldeck._utils.logs import get_logger
from tooldeck.errors import ToolError

LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""The severity of a running tool's log message (MCP's levels, syslog's order)."""
LEVELS: tuple[LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""The logging levels, least severe first."""
_PY_LEVELS = {"debug": 10, "info": 20, "notice": 25, "warning": 30, "error": 40}

log = get_logger("tooldeck.tools")


@dataclass(frozen=True, slots=True)
class ProgressReport:
    """How far a running call is: `progress` of `total` (None: unknown), and what it is doing."""

    tool: str
    call_id: str
    progress: float
    total: float | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A log message of a running call, at one of MCP's levels, with optional JSON data."""

    tool: str
    call_id: str
    level: LoggingLevel
    message: str
    data: Any = None


@dataclass(frozen=True, slots=True)
class Elicitation:
    """The user's answer: `accept` with `content` (the form's values), `decline` or `cancel`.
    `reason` says why when nobody answered (no one to ask, the answer did not fit the form)."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] | None = None
    reason: str = ""

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """A question a running tool asks the user: `message` and the form (`schema`) to fill in."""

    tool: str
    call_id: str
    message: str
    schema: Mapping[str, Any]
    # The question's name where answers come back by name (MCP 2026-07-28 `inputRequests`).
    key: str | None = None


@dataclass(frozen=True, slots=True)
class SamplingMessage:
    """One message of the conversation a tool puts to a model (`ctx.sample`)."""

    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True, slots=True)
class Sample:
    """A model's answer to a tool's question."""

    text: str
    model: str | None = None
    stop_reason: str | None = None


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A running tool asking a model (MCP sampling): the messages, the token limit, and the
    call it comes from."""

    tool: str
    call_id: str
    messages: tuple[SamplingMessage, ...]
    max_tokens: int
    system: str | None = None
    temperature: float | None = None
    key: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Root:
    """A root the client works in (MCP roots): a `file://` URI and its name."""

    uri: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class RootsRequest:
    """A running tool asking which roots (folders) the client works in (MCP roots)."""

    tool: str
    call_id: str
    key: str | None = None


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """A running tool asking to go on as a task (MCP's tasks extension): the client gets a task
    handle now and polls for the result; `message` is the task's first status message."""

    tool: str
    call_id: str
    message: str | None = None


class ToolChannel:
    """What answers a running tool. Subclasses override what their layer can do."""

    async def progress(self, report: ProgressReport) -> None:
        r = report
        log.debug("%s %s: progress %s/%s %s", r.tool, r.call_id, r.progress, r.total, r.message or "")

    async def log(self, entry: LogEntry) -> None:
        extra = f" {entry.data!r}" if entry.data is not None else ""
        log.log(_PY_LEVELS.get(entry.level, 50), "%s: %s%s", entry.tool, entry.message, extra)

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        return Elicitation("decline", reason="nobody can be asked here")

    async def list_roots(self, request: RootsRequest) -> tuple[Root, ...]:
        """The client's roots; none where no client declared any."""
        return ()

    async def as_task(self, request: TaskRequest) -> bool:
        """True when the call now goes on as a task; False (here: always) when it goes on as it was."""
        return False

    async def sample(self, request: SamplingRequest) -> Sample:
        raise ToolError(
            f"tool {request.tool!r} asked a model (sampling), and no model is at hand: run it in the "
            "agent loop (its model answers) or through `tooldeck serve` to a client that declared sampling",
            type="unavailable",
        )


# -- forms --------------------------------------------------------------------------------------

_STRING_KEYS = frozenset(
    {"type", "title", "description", "minLength", "maxLength", "format", "default", "pattern"}
)
_NUMBER_KEYS = frozenset({"type", "title", "description", "minimum", "maximum", "default"})
_BOOLEAN_KEYS = frozenset({"type", "title", "description", "default"})
_ENUM_KEYS = frozenset({"type", "title", "description", "enum", "enumNames", "oneOf", "default"})
_ARRAY_KEYS = frozenset({"type", "title", "description", "items", "minItems", "maxItems", "default"})
_FORMATS = frozenset({"email", "uri", "date", "date-time"})


def check_form(schema: Any) -> dict[str, Any]:
    """`schema` when it is an elicitation form MCP allows; a ToolError naming what is not."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ToolError("an elicitation form must be a JSON Schema object ({'type': 'object', ...})")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise ToolError("an elicitation form's properties must be an object")
    for name, prop in properties.items():
        _check_field(str(name), prop)
    required = schema.get("required", [])
    if not isinstance(required, list) or any(r not in properties for r in required):
        raise ToolError(f"an elicitation form's required names fields it does not have: {required!r}")
    return dict(schema)


def _check_field(name: str, prop: Any) -> None:
    where = f"elicitation form field {name!r}"
    if not isinstance(prop, Mapping):
        raise ToolError(f"{where} must be a schema object")
    kind = prop.get("type")
    if "enum" in prop or "oneOf" in prop:
        allowed = _ENUM_KEYS
        if kind != "string":
            raise ToolError(f"{where}: an enum's type must be string")
        options = _options(prop)
        if not options or not all(isinstance(o, str) for o in options):
            raise ToolError(f"{where}: an enum needs string options (enum, or oneOf of {{const, title}})")
    elif kind == "string":
        allowed = _STRING_KEYS
        if "format" in prop and prop["format"] not in _FORMATS:
            raise ToolError(f"{where}: format must be one of {sorted(_FORMATS)}")
    elif kind in ("number", "integer"):
        allowed = _NUMBER_KEYS
    elif kind == "boolean":
        allowed = _BOOLEAN_KEYS
    elif kind == "array":
        allowed = _ARRAY_KEYS
        items = prop.get("items")
        if not isinstance(items, Mapping) or not _options(items):
            raise ToolError(
                f"{where}: a multi-select's items must be a string enum (enum, or anyOf of {{const, title}})"
            )
    else:
        raise ToolError(
            f"{where}: type {kind!r} is not one MCP forms take (string, number, integer, boolean, "
            "a string enum, or an array of one); nested objects are not allowed"
        )
    extra = sorted(set(prop) - allowed)
    if extra:
        raise ToolError(f"{where}: {', '.join(extra)} not allowed in an elicitation form")


def _options(prop: Mapping[str, Any]) -> list[Any]:
    """The values a single- or multi-select enum allows."""
    if isinstance(prop.get("enum"), list):
        return list(prop["enum"])
    for key in ("oneOf", "anyOf"):
        if isinstance(prop.get(key), list):
            return [o.get("const") for o in prop[key] if isinstance(o, Mapping)]
    return []


def options_of(prop: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(value, title) of each option of an enum field or a multi-select's items."""
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    if isinstance(source.get("enum"), list):
        names = source.get("enumNames") if isinstance(source.get("enumNames"), list) else None
        return [(v, names[i] if names and i < len(names) else v) for i, v in enumerate(source["enum"])]
    for key in ("oneOf", "anyOf"):
        if isinstance(source.get(key), list):
            return [(o["const"], o.get("title", o["const"])) for o in source[key] if isinstance(o, Mapping)]
    return []


def defaults_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {k: p["default"] for k, p in schema.get("properties", {}).items() if "default" in p}


def checked_answer(schema: Mapping[str, Any], answer: Elicitation) -> Elicitation:
    """An accepted answer with the form's defaults filled in, when it matches the form; a
    decline saying what does not match otherwise (a tool never gets content its form refuses)."""
    if not answer.accepted:
        return Elicitation(answer.action, None, answer.reason)
    content = {**defaults_of(schema), **dict(answer.content or {})}
    errors = form_errors(schema, content)
    if errors:
        return Elicitation("decline", None, f"the answer does not fit the form: {'; '.join(errors[:3])}")
    return Elicitation("accept", content, answer.reason)


def form_errors(schema: Mapping[str, Any], content: Mapping[str, Any]) -> list[str]:
    from tooldeck._core.schemas.validate import compile_schema

    strict = {**schema, "additionalProperties": False}
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = dict(prop)
        for key in ("enumNames", "format", "title", "description"):
            prop.pop(key, None)
        if "oneOf" in prop:  # titled options: the value is one of the consts
            prop = {"type": "string", "enum": _options(prop)}
        if prop.get("type") == "array":
            prop["items"] = {"type": "string", "enum": _options(prop["items"])}
        properties[name] = prop
    strict["properties"] = properties
    errors: list[str] = []
    compile_schema(strict, coerce=False)(dict(content), "", errors)
    return errors


def sampling_messages(messages: str | Sequence[SamplingMessage | str]) -> tuple[SamplingMessage, ...]:
    """A prompt, or messages (a plain string in a list is the user's), as sampling messages."""
    if isinstance(messages, str):
        return (SamplingMessage("user", messages),)
    out = tuple(m if isinstance(m, SamplingMessage) else SamplingMessage("user", str(m)) for m in messages)
    if not out:
        raise ToolError("sampling needs at least one message")
    return out
