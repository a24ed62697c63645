"""Structured events about each call, for subscribers (logs, UIs, tests).

Every call emits `started`, then `validated` (when its arguments passed), then exactly one
`finished` carrying the outcome (`ok` or the error type) and the duration. Other kinds report
what happened in between: `policy` (a decision other than allow), `spilled` (an oversized result
kept aside), `duplicate_id` (a call not run because its id was already used in the batch),
`progress` and `log` (what a running tool reported through its context; `data` holds
`progress`/`total`, or `level` and the message's data).
A tool's traceback travels in the `finished` event of a `tool_error`, never to the model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from tooldeck._utils.logs import get_logger

EventKind = Literal[
    "started", "validated", "policy", "finished", "spilled", "duplicate_id", "progress", "log"
]

log = get_logger("tooldeck.execution")


@dataclass(frozen=True, slots=True)
class ExecutionEvent:
    """One thing that happened to one call."""

    kind: EventKind
    call_id: str
    tool: str
    time: float = field(default_factory=time.time)
    # For `finished`: "ok" or the error type; for `policy`: the decision.
    outcome: str | None = None
    duration_s: float | None = None
    message: str | None = None
    traceback: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


class EventSink(Protocol):
    """Receives events. Called from the event loop thread; must not block."""

    def emit(self, event: ExecutionEvent) -> None: ...


class CollectingSink:
    """Keeps every event in a list (thread-safe); what tests and the CLI's --verbose use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[ExecutionEvent] = []

    def emit(self, event: ExecutionEvent) -> None:
        with self._lock:
            self.events.append(event)

    def of(self, call_id: str) -> list[ExecutionEvent]:
        with self._lock:
            return [e for e in self.events if e.call_id == call_id]

    def kinds(self, call_id: str) -> list[str]:
        return [e.kind for e in self.of(call_id)]


class CallbackSink:
    """Forwards each event to a function."""

    def __init__(self, fn: Callable[[ExecutionEvent], None]) -> None:
        self._fn = fn

    def emit(self, event: ExecutionEvent) -> None:
        self._fn(event)


class LoggingSink:
    """Writes events to the `tooldeck._core.execution` logger (tracebacks at WARNING)."""

    def emit(self, event: ExecutionEvent) -> None:
        if event.kind == "finished" and event.traceback:
            log.warning(
                "tool %s (%s) failed: %s\n%s", event.tool, event.call_id, event.message, event.traceback
            )
        else:
            log.debug("%s %s (%s) %s", event.kind, event.tool, event.call_id, event.outcome or "")


class FanOutSink:
    """Sends each event to several sinks; one failing sink does not silence the others."""

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = sinks

    def emit(self, event: ExecutionEvent) -> None:
        for sink in self.sinks:
            try:
                sink.emit(event)
            except Exception:  # boundary: a subscriber's bug must not break tool execution
                log.exception("event sink %r failed", sink)
