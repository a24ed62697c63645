"""Events the agent loop emits for every step, and the sinks that receive them.

A sink is any callable taking an `Event`. The CLI's `chat` prints them as they happen, tests
collect them in a list, an application may forward them to a UI. A sink must not raise; the
loop does not guard against it (a broken UI should be loud, not silently ignored).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tooldeck.agent.messages import Usage
from tooldeck.core import LogEntry, ProgressReport, RunStateUpdate, ToolCall, ToolResult

# A running tool said how far it is (`ctx.report_progress`) or logged (`ctx.log`): the core's own
# records, as they come.
ToolProgress = ProgressReport
ToolLogged = LogEntry


@dataclass(frozen=True, slots=True)
class ModelRequested:
    """The loop is about to call the model. `tools` are the names sent (empty: no tools)."""

    iteration: int
    message_count: int
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's text while it streams."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning while it streams (thinking text or its summary)."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDropped:
    """Reasoning a reply of another model or wire format carried (`sources`, as "api:model") is
    left out of a request to `target`, which would reject it; the stored history keeps it."""

    sources: tuple[str, ...]
    target: str


@dataclass(frozen=True, slots=True)
class CacheBreak:
    """A request does not start with the previous request of its conversation: the provider's
    prompt cache is reused only up to `reused` of the previous request's characters (a share,
    0-1), and `changed` names why (`tools: added x`, `system prompt`, `history rewritten`)."""

    changed: tuple[str, ...]
    reused: float


@dataclass(frozen=True, slots=True)
class ModelReplied:
    iteration: int
    text: str
    tool_calls: tuple[ToolCall, ...]
    stop_reason: str | None
    usage: Usage
    reasoning: str = ""  # the model's readable reasoning (thinking, summaries), when it gave any


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """A model call failed with a retryable error and will be tried again after `delay_s`."""

    attempt: int
    delay_s: float
    error: str


@dataclass(frozen=True, slots=True)
class ToolCallsStarted:
    iteration: int
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True, slots=True)
class ToolResultReady:
    iteration: int
    result: ToolResult


@dataclass(frozen=True, slots=True)
class StateUpdated:
    """A state-update tool changed the run state (e.g. artifacts, todo list)."""

    call_id: str
    update: RunStateUpdate


@dataclass(frozen=True, slots=True)
class TurnInterrupted:
    """A control-flow tool (`clarify`) stopped the run, and the user's answer resumes it; or calls
    wait for approval (`interrupt["kind"] == "approval"`, with `pending`), and decisions resume it."""

    call_id: str
    interrupt: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class BudgetExhausted:
    """The iteration budget ran out; the model gets one last call without tools to summarise."""

    iterations: int


@dataclass(frozen=True, slots=True)
class TurnFinished:
    status: str
    text: str
    iterations: int
    usage: Usage = field(default_factory=Usage)


Event = (
    ModelRequested
    | TextDelta
    | ReasoningDelta
    | ReasoningDropped
    | CacheBreak
    | ModelReplied
    | RetryScheduled
    | ToolCallsStarted
    | ToolResultReady
    | StateUpdated
    | TurnInterrupted
    | BudgetExhausted
    | TurnFinished
    | ToolProgress
    | ToolLogged
)
"""Anything that happens in an agent run, as the sink given to the agent receives it."""
EventSink = Callable[[Event], None]
"""A function the agent hands each `Event` of a run to, as it happens."""


def null_sink(event: Event) -> None:
    """The sink used when nobody listens."""


class EventLog:
    """A sink that keeps every event (for tests and transcripts)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
