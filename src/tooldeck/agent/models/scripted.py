"""`ScriptedModel`: a model client that plays a script, for users' tests.

    model = ScriptedModel([
        reply(calls=[call("read_file", {"path": "a.txt"})]),
        reply("The file says hello."),
    ])

Each step is a `ModelReply`, an exception to raise, or a function of the request (for replies
that depend on what the loop sent). Every request is kept in `model.requests`, so a test can
assert which tools were offered and which tool results came back.

A reply may carry reasoning (`reply(..., reasoning="...")`): it is signed as a reasoning
model's is, and like those providers the model refuses (a 400 `ModelError`) any later request
whose history gives back a tool-calling reply without its signed reasoning, or with it changed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tooldeck.agent.events import EventSink, ReasoningDelta, TextDelta
from tooldeck.agent.messages import Message, ModelReply, ProviderData, Usage
from tooldeck.agent.models.base import ModelRequest
from tooldeck.agent.models.reasoning import carried
from tooldeck.core import ToolCall
from tooldeck.errors import ModelError
from tooldeck.errors import ScriptExhausted as ScriptExhausted

Step = ModelReply | BaseException | Callable[[ModelRequest], ModelReply]

_ids = itertools.count(1)


def call(name: str, arguments: Mapping[str, Any] | str | None = None, *, id: str | None = None) -> ToolCall:
    """A tool call for a script; a dict is sent as JSON text, a string verbatim (to test bad JSON)."""
    raw = json.dumps(dict(arguments)) if isinstance(arguments, Mapping) else arguments
    return ToolCall(id=id or f"call_{next(_ids)}", name=name, arguments=raw)


def reply(
    text: str = "", calls: Sequence[ToolCall] = (), *, stop_reason: str | None = None, reasoning: str = ""
) -> ModelReply:
    """A scripted assistant reply: some text, some tool calls, or both; with `reasoning`, the
    model's thinking before them."""
    stop = stop_reason or ("tool_calls" if calls else "stop")
    return ModelReply(
        message=Message(role="assistant", content=text, tool_calls=tuple(calls), reasoning=reasoning),
        stop_reason=stop,
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
        # The signed reasoning of each tool-calling reply, by its first call's id.
        self._issued: dict[str, ProviderData] = {}

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
        self._check(carried(request.messages, "scripted", self._model_name, events))
        if not self._script:
            raise ScriptExhausted(f"ScriptedModel: no scripted reply left for request #{len(self.requests)}")
        step = self._script.pop(0)
        if isinstance(step, BaseException):
            raise step
        result = self._signed(step if isinstance(step, ModelReply) else step(request))
        if self._stream and events is not None:
            for piece in re.findall(r"\S+\s*|\s+", result.message.reasoning):
                events(ReasoningDelta(piece))
            for piece in re.findall(r"\S+\s*|\s+", result.message.content):
                events(TextDelta(piece))
        if result.usage == Usage():
            chars = sum(len(m.content) for m in request.messages)
            thought = len(result.message.reasoning) // 4
            usage = Usage(chars // 4, len(result.message.content) // 4 + thought, thought)
            result = ModelReply(result.message, result.stop_reason, usage)
        return result

    def _signed(self, result: ModelReply) -> ModelReply:
        """The reply with its reasoning signed, remembered when it calls tools."""
        message = result.message
        if not message.reasoning or message.provider_data is not None:
            return result
        signature = hashlib.sha256(message.reasoning.encode()).hexdigest()[:24]
        data = ProviderData(
            "scripted", self._model_name, {"reasoning": message.reasoning, "signature": signature}
        )
        if message.tool_calls:
            self._issued[message.tool_calls[0].id] = data
        return ModelReply(
            replace(message, provider_data=data), result.stop_reason, result.usage, result.model
        )

    def _check(self, messages: Sequence[Message]) -> None:
        """Refuse, as reasoning providers do, a history that lost or changed signed reasoning."""
        for n, m in enumerate(messages):
            expected = self._issued.get(m.tool_calls[0].id) if m.tool_calls else None
            if expected is not None and m.provider_data != expected:
                raise ModelError(
                    f"scripted: messages[{n}]: the reasoning of a reply that called tools must be passed "
                    "back as it was sent (signed), in every later request",
                    kind="bad_request",
                    status=400,
                )

    async def aclose(self) -> None:
        return None
