"""`ScriptedModel`: a model client that plays a script, for users' tests.

    model = ScriptedModel([
        reply(calls=[call("read_file", {"path": "a.txt"})]),
        reply("The file says hello."),
    ])

Each step is a `ModelReply`, an exception to raise, or a function of the request (for replies
that depend on what the loop sent). Every request is kept in `model.requests`, so a test can
assert which tools were offered and which tool results came back.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tooldeck.agent.events import EventSink, TextDelta
from tooldeck.agent.messages import Message, ModelReply, Usage
from tooldeck.agent.models.base import ModelRequest
from tooldeck.core import ToolCall
from tooldeck.errors import ScriptExhausted as ScriptExhausted

Step = ModelReply | BaseException | Callable[[ModelRequest], ModelReply]

_ids = itertools.count(1)


def call(name: str, arguments: Mapping[str, Any] | str | None = None, *, id: str | None = None) -> ToolCall:
    """A tool call for a script; a dict is sent as JSON text, a string verbatim (to test bad JSON)."""
    raw = json.dumps(dict(arguments)) if isinstance(arguments, Mapping) else arguments
    return ToolCall(id=id or f"call_{next(_ids)}", name=name, arguments=raw)


def reply(text: str = "", calls: Sequence[ToolCall] = (), *, stop_reason: str | None = None) -> ModelReply:
    """A scripted assistant reply: some text, some tool calls, or both."""
    stop = stop_reason or ("tool_calls" if calls else "stop")
    return ModelReply(
        message=Message(role="assistant", content=text, tool_calls=tuple(calls)), stop_reason=stop
    )


class ScriptedModel:
    """A `ModelClient` that returns scripted replies in order and records every request."""

    def __init__(
        self, script: Iterable[Step] = (), *, model_name: str = "scripted", stream: bool = False
    ) -> None:
        self._script = list(script)
        self._model_name = model_name
        self._stream = stream
        self.requests: list[ModelRequest] = []

    @property
    def model_name(self) -> str:
        return self._model_name

    def extend(self, steps: Iterable[Step]) -> None:
        self._script.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self._script)

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        self.requests.append(request)
        if not self._script:
            raise ScriptExhausted(f"ScriptedModel: no scripted reply left for request #{len(self.requests)}")
        step = self._script.pop(0)
        if isinstance(step, BaseException):
            raise step
        result = step if isinstance(step, ModelReply) else step(request)
        if self._stream and events is not None and result.message.content:
            for piece in re.findall(r"\S+\s*|\s+", result.message.content):
                events(TextDelta(piece))
        if result.usage == Usage():
            chars = sum(len(m.content) for m in request.messages)
            result = ModelReply(
                result.message, result.stop_reason, Usage(chars // 4, len(result.message.content) // 4)
            )
        return result

    async def aclose(self) -> None:
        return None
