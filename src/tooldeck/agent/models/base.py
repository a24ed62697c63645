"""The one protocol every model client speaks, and the errors they raise.

A client turns a `ModelRequest` (provider-neutral messages plus the loadout whose exposed tools
the model may call) into its provider's wire format, calls the provider through the official
SDK, and returns a `ModelReply`. Streaming text is reported as `TextDelta` events; retries as
`RetryScheduled` events (see `retry.py`).

    ModelError (TooldeckError)      -- the provider refused or failed; `kind` says how
        kind: auth | not_found | context_length | rate_limit | server | connection | timeout
              | bad_request | bad_response
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tooldeck.agent.events import EventSink
from tooldeck.agent.messages import Message, ModelReply
from tooldeck.errors import ModelError, ModelErrorKind

if TYPE_CHECKING:
    from tooldeck.agent.models.reasoning import Reasoning
    from tooldeck.core import Loadout

Provider = Literal["openai", "responses", "anthropic"]
ErrorKind = ModelErrorKind


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Everything a client needs to reach one model (built from config `model:` plus flags)."""

    provider: Provider
    model: str
    base_url: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None  # named in auth errors so the user knows what to fix
    max_tokens: int | None = None
    temperature: float | None = None
    stream: bool = False
    timeout_s: float = 60.0
    max_retries: int = 2
    retry_initial_s: float = 1.0
    retry_max_s: float = 30.0
    strict_tools: bool = False
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    # Reasoning turned on and sized (config `model.reasoning`); None: the model's own default.
    reasoning: Reasoning | None = None


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One call: system prompt, history, and the tools the model may call.

    `loadout` is None when no tools exist at all. `allow_tools=False` asks for a final answer
    without tools (the iteration budget ran out); clients that must still declare tools because
    the history holds tool calls (Anthropic) send them with tool use disabled.
    """

    system: str | None
    messages: Sequence[Message]
    loadout: Loadout | None = None
    allow_tools: bool = True
    # The conversation the request belongs to: OpenAI's `prompt_cache_key`, and the key the
    # client compares a request's cacheable prefix with the previous one's under.
    session_id: str | None = None

    @property
    def tool_names(self) -> tuple[str, ...]:
        if self.loadout is None or not self.allow_tools:
            return ()
        return self.loadout.exposed_names


class ModelClient(Protocol):
    """A model behind one interface: OpenAI Chat Completions, OpenAI Responses, Anthropic, fakes."""

    @property
    def model_name(self) -> str: ...

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        """Call the model once; stream text as `TextDelta` events when streaming is on."""
        ...

    async def aclose(self) -> None: ...


def classify_status(status: int, message: str) -> ErrorKind:
    """Map an HTTP status (and the provider's message) to what the user must hear."""
    text = message.lower()
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 429:
        return "rate_limit"
    if status == 413 or any(
        marker in text
        for marker in (
            "context length",
            "context_length",
            "maximum context",
            "prompt is too long",
            "too many tokens",
        )
    ):
        return "context_length"
    if status == 408:
        return "timeout"
    if status >= 500:
        return "server"
    return "bad_request"


def describe_status_error(
    kind: ErrorKind,
    *,
    provider: str,
    model: str,
    base_url: str | None,
    key_env: str | None,
    detail: str,
    status: int,
) -> str:
    """A message that says what went wrong (with the HTTP status) and what to check."""
    endpoint = base_url or "the provider's default endpoint"
    where = f"{endpoint} (HTTP {status})"
    if kind == "auth":
        hint = f"check the API key in {key_env}" if key_env else "check the API key"
        return f"{provider}: authentication failed at {where} ({hint}): {detail}"
    if kind == "not_found":
        return (
            f"{provider}: model {model!r} or the endpoint was not found at {where} "
            f"(check --model and --base-url): {detail}"
        )
    if kind == "context_length":
        return f"{provider}: the conversation is too long for model {model!r}'s context window: {detail}"
    if kind == "rate_limit":
        return f"{provider}: rate limited by {where}: {detail}"
    if kind == "server":
        return f"{provider}: server error at {where}: {detail}"
    return f"{provider}: request rejected by {where}: {detail}"


def error_detail(body: Any, fallback: str) -> str:
    """The provider's own error text, from either SDK's error body shape."""
    if isinstance(body, list) and len(body) == 1:  # Gemini's OpenAI-compatible errors come in a list
        body = body[0]
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return fallback


def retry_after(headers: Any) -> float | None:
    """Seconds from a `retry-after` / `retry-after-ms` header, when the provider sent one."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


class SdkModel:
    """What the SDK-backed clients share: their settings, the model name and closing the client."""

    settings: ModelSettings
    _client: Any

    @property
    def model_name(self) -> str:
        return self.settings.model

    async def aclose(self) -> None:
        await self._client.close()

    def watch_prefix(self, request: ModelRequest, body: dict[str, Any], events: EventSink | None) -> None:
        """Report a `CacheBreak` when `body` does not begin with the conversation's previous
        request (see `prefix.py`)."""
        from tooldeck.agent.models.prefix import PrefixWatch

        watch: PrefixWatch = self.__dict__.setdefault("_prefix_watch", PrefixWatch())
        found = watch.observe(request.session_id, body)
        if found is not None and events is not None:
            events(found)


@dataclass(slots=True)
class RawCall:
    """One SDK `create` made through its raw-response view, so the HTTP status is known before
    the body is parsed and an unreadable body can still be reported with it."""

    status: int | None = None

    async def create(self, resource: Any, **body: Any) -> Any:
        raw = await resource.with_raw_response.create(**body)
        self.status = raw.status_code
        parsed = raw.parse()  # openai parses synchronously, anthropic's async client awaits
        return await parsed if inspect.isawaitable(parsed) else parsed


def unreadable_reply(
    provider: str, settings: ModelSettings, exc: Exception, *, status: int | None
) -> ModelError:
    """An endpoint answered, but not with a response the SDK could read (HTML, truncated JSON)."""
    where = settings.base_url or provider
    answered = f"answered HTTP {status}" if status is not None else "answered"
    body = getattr(exc, "doc", None)
    snippet = f"; it began: {body[:120]!r}" if isinstance(body, str) and body else ""
    return ModelError(
        f"{provider}: {where} {answered} with something that is not a model response "
        f"({type(exc).__name__}: {str(exc)[:200]}){snippet}; is --base-url the API endpoint?",
        kind="bad_response",
        status=status,
    )


def client_options(settings: ModelSettings) -> dict[str, Any]:
    """Keyword arguments for an official SDK client: our retries replace the SDK's."""
    return {
        "api_key": settings.api_key or "not-needed",
        "timeout": settings.timeout_s,
        "max_retries": 0,
        "default_headers": dict(settings.extra_headers) or None,
    }
