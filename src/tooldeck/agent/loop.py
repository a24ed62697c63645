"""The agent loop: call the model, run its tool calls, repeat until it answers.

The loop is small on purpose. It owns the order of steps and nothing else; it delegates to
the model client, the batch runner (the execution engine), the tool view (which
schemas the model may see this iteration), the recorder (the session store) and the
event sink. Control-flow (`clarify`) and state-update (`present_files`, `todo`) tools reach it
as fields of `ToolResult`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from tooldeck._utils.text import utf8_safe
from tooldeck.agent.events import (
    BudgetExhausted,
    EventSink,
    ModelReplied,
    ModelRequested,
    StateUpdated,
    ToolCallsStarted,
    ToolResultReady,
    TurnFinished,
    TurnInterrupted,
    null_sink,
)
from tooldeck.agent.interrupts import HeldBatch, is_awaiting
from tooldeck.agent.messages import Message, ModelReply, Usage, for_model, tool_message, unique_ids, user
from tooldeck.agent.models.base import ModelClient, ModelRequest
from tooldeck.agent.toolview import ToolView
from tooldeck.core import ErrorEnvelope, RunState, RunStateUpdate, ToolCall, ToolResult, promote
from tooldeck.errors import ModelError
from tooldeck.tracing import agent_span, chat_span

TurnStatus = Literal["done", "interrupted", "budget_exhausted"]

BUDGET_NOTE = (
    "You have used all {n} tool iterations available for this turn. Do not call tools. "
    "Summarise what you did, what you found, and what remains to be done."
)


class BatchRunner(Protocol):
    """Runs one batch of tool calls; one result per call, in the model's order (the Executor)."""

    async def execute(
        self, calls: Sequence[ToolCall], *, state: RunState | None = None
    ) -> list[ToolResult]: ...


class Recorder(Protocol):
    """Where the loop writes as it goes, so a crash loses nothing already returned."""

    def append_message(self, session_id: str, message: Message) -> None: ...

    def save_state(
        self,
        session_id: str,
        state: RunState,
        *,
        status: str,
        interrupt: Mapping[str, Any] | None = None,
    ) -> None: ...


@dataclass
class Conversation:
    """One session's live state: the history, the run state shared by tools, a pending question."""

    session_id: str
    system: str | None = None
    messages: list[Message] = field(default_factory=list)
    state: RunState = field(default_factory=RunState)
    pending: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How one agent turn ended: its status, the answer's text, the model calls it took, the
    tokens used, the question it stopped at (`interrupt`) and the session it belongs to."""

    status: TurnStatus
    text: str
    iterations: int
    usage: Usage
    interrupt: Mapping[str, Any] | None = None
    session_id: str = ""

    @property
    def question(self) -> str | None:
        """The question a control-flow tool asked the user, when the run is interrupted."""
        if self.interrupt is None or self.interrupt.get("kind") == "approval":
            return None
        return str(self.interrupt.get("question", ""))

    @property
    def pending(self) -> list[dict[str, Any]]:
        """The calls the turn stopped at, waiting for approval (`Agent.resume` decides them):
        each with `call_id`, `tool`, `arguments`, `rule`, `reason`, `subject`."""
        if self.interrupt is None or self.interrupt.get("kind") != "approval":
            return []
        return [dict(p) for p in self.interrupt.get("pending", ())]


class AgentLoop:
    """Runs turns of one agent: `await loop.run(conversation, "user text")`."""

    def __init__(
        self,
        model: ModelClient,
        *,
        runner: BatchRunner,
        tools: ToolView,
        recorder: Recorder | None = None,
        events: EventSink | None = None,
        max_iterations: int = 90,
        budget_note: str = BUDGET_NOTE,
        name: str = "tooldeck",
        images: bool = False,
    ) -> None:
        check_iterations(max_iterations)
        # Images in tool results go to the model (it reads them: `model.supports_vision`).
        self.images = images
        self.name = name  # the agent's name in traces (`invoke_agent <name>`)
        self.model = model
        self.runner = runner
        self.tools = tools
        self.recorder = recorder
        self.events = events or null_sink
        self.max_iterations = max_iterations
        self.budget_note = budget_note

    async def run(self, convo: Conversation, prompt: str | None) -> TurnResult:
        """One turn: the user's message (or a clarify answer), then model and tools until done.

        A cancelled turn (Ctrl-C) is stored as `cancelled`: the history so far is kept, and
        `--resume` continues it.
        """
        model, provider = self.model.model_name, provider_name(self.model)
        try:
            with agent_span(self.name, conversation_id=convo.session_id, model=model, provider=provider):
                return await self._turn(convo, prompt)
        except asyncio.CancelledError:
            self._save(convo, "cancelled")
            raise

    async def _turn(self, convo: Conversation, prompt: str | None) -> TurnResult:
        if prompt is not None:
            self._append(convo, user(prompt))
        convo.pending = None
        usage = Usage()
        iteration = 0
        while iteration < self.max_iterations:
            iteration += 1
            reply = _with_unique_ids(await self._call_model(convo, iteration, allow_tools=True))
            usage += reply.usage
            if reply.found:  # the provider's own search loaded these: calls to them are accepted
                self._promote(convo, reply.found)
            self._append(convo, replace(reply.message, usage=reply.usage))
            if not reply.tool_calls:
                return self._finish(convo, "done", reply.message.content, iteration, usage)
            interrupt = await self._run_tools(convo, iteration, reply.tool_calls)
            if interrupt is not None:
                return self._interrupted(convo, interrupt, iteration, usage)
        self.events(BudgetExhausted(iterations=iteration))
        self._append(convo, user(self.budget_note.format(n=iteration)))
        reply = await self._call_model(convo, iteration + 1, allow_tools=False)
        usage += reply.usage
        # Tool calls in the summary are dropped: nothing would answer them.
        self._append(convo, replace(reply.message, tool_calls=(), usage=reply.usage))
        return self._finish(convo, "budget_exhausted", reply.message.content, iteration, usage)

    async def _call_model(self, convo: Conversation, iteration: int, *, allow_tools: bool) -> ModelReply:
        loadout = self.tools.for_state(convo.state)
        system = self.tools.system(convo.system, loadout)  # plus the deferred tools, by name
        request = ModelRequest(
            system=system and utf8_safe(system),  # a lone surrogate goes as U+FFFD, stored as it is
            messages=tuple(map(for_model, convo.messages)),
            loadout=loadout,
            allow_tools=allow_tools,
            session_id=convo.session_id,
        )
        self.events(ModelRequested(iteration, len(request.messages), request.tool_names))
        try:
            with chat_span(self.model.model_name, provider_name(self.model)) as span:
                reply = await self.model.complete(request, events=self.events)
                span.usage(
                    reply.usage.input_tokens,
                    reply.usage.output_tokens,
                    reasoning=reply.usage.reasoning_tokens,
                    cache_read=reply.usage.cache_read_input_tokens,
                    cache_creation=reply.usage.cache_creation_input_tokens,
                )
                span.response(reply.model, reply.stop_reason)
        except ModelError:
            self._save(convo, "error")  # the history so far is kept; `--resume` can retry the turn
            raise
        self.events(
            ModelReplied(
                iteration,
                reply.message.content,
                reply.tool_calls,
                reply.stop_reason,
                reply.usage,
                reply.message.reasoning,
            )
        )
        return reply

    def _promote(self, convo: Conversation, names: Sequence[str]) -> None:
        update = RunStateUpdate(promoted=promote(convo.state, self.tools.for_state(convo.state), names))
        self.events(StateUpdated("", update))

    async def _run_tools(
        self, convo: Conversation, iteration: int, calls: Sequence[ToolCall]
    ) -> tuple[str, Mapping[str, Any]] | None:
        self.events(ToolCallsStarted(iteration, tuple(calls)))
        results = one_result_per_call(calls, await self.runner.execute(calls, state=convo.state))
        if any(map(is_awaiting, results)):
            # Some calls wait for approval: no result of this reply reaches the history until
            # every call has one, so they go back in the model's order (stored meanwhile).
            self._settle(convo, iteration, results, record=False)
            held = HeldBatch.of(calls, results, images=self.images)
            return ("", held.to_json())
        interrupt = self._settle(convo, iteration, results, record=True)
        self._save(convo, "running")
        return interrupt

    def _settle(
        self, convo: Conversation, iteration: int, results: Sequence[ToolResult], *, record: bool
    ) -> tuple[str, Mapping[str, Any]] | None:
        """Results announced and their state updates applied; with `record`, appended to the
        history. Returns the first interrupt a result carries."""
        interrupt: tuple[str, Mapping[str, Any]] | None = None
        for result in results:
            if is_awaiting(result):
                continue
            self.events(ToolResultReady(iteration, result))
            if record:
                self._append(convo, tool_message(result, images=self.images))
            if result.update is not None:
                convo.state.apply(result.update)
                self.events(StateUpdated(result.call_id, result.update))
            if result.interrupt is not None and interrupt is None:
                interrupt = (result.call_id, result.interrupt)
        return interrupt

    async def resume(self, convo: Conversation, held: HeldBatch, calls: Sequence[ToolCall]) -> TurnResult:
        """Continue a turn stopped at approval: run the decided `calls` (the stored batch's
        approvals answer them), then, once every call of the batch has a result, return them in
        the model's order and ask the model again. Calls still undecided keep the turn waiting."""
        model, provider = self.model.model_name, provider_name(self.model)
        try:
            with agent_span(self.name, conversation_id=convo.session_id, model=model, provider=provider):
                if calls:
                    self.events(ToolCallsStarted(0, tuple(calls)))
                    results = one_result_per_call(calls, await self.runner.execute(calls, state=convo.state))
                    self._settle(convo, 0, results, record=False)
                    held.add(results, images=self.images)
                if held.waiting:
                    return self._interrupted(convo, ("", held.to_json()), 0, Usage())
                for message in held.messages():
                    self._append(convo, message)
                return await self._turn(convo, None)
        except asyncio.CancelledError:
            self._save(convo, "cancelled", held.to_json())
            raise

    def _interrupted(
        self, convo: Conversation, interrupt: tuple[str, Mapping[str, Any]], iteration: int, usage: Usage
    ) -> TurnResult:
        call_id, payload = interrupt
        convo.pending = dict(payload)
        held = HeldBatch.load(payload)
        shown = held.public() if held is not None else payload
        self.events(TurnInterrupted(call_id, shown))
        self._save(convo, "interrupted", payload)
        question = str(payload.get("question", "")) if held is None else ""
        self.events(TurnFinished("interrupted", question, iteration, usage))
        return TurnResult("interrupted", question, iteration, usage, shown, convo.session_id)

    def _finish(
        self, convo: Conversation, status: TurnStatus, text: str, iteration: int, usage: Usage
    ) -> TurnResult:
        # A turn that ended without a word of answer is stored as such, so it can be found and
        # resumed; the result's status stays "done" (the model did end its turn).
        self._save(convo, "no_answer" if status == "done" and not text.strip() else status)
        self.events(TurnFinished(status, text, iteration, usage))
        return TurnResult(status, text, iteration, usage, None, convo.session_id)

    def _append(self, convo: Conversation, message: Message) -> None:
        convo.messages.append(message)
        if self.recorder is not None:
            self.recorder.append_message(convo.session_id, message)

    def _save(self, convo: Conversation, status: str, interrupt: Mapping[str, Any] | None = None) -> None:
        if self.recorder is not None:
            self.recorder.save_state(convo.session_id, convo.state, status=status, interrupt=interrupt)


def provider_name(model: ModelClient) -> str:
    """`gen_ai.provider.name` of a model client: the provider its settings name (both OpenAI
    APIs are "openai"); a client without settings (the scripted model) is "tooldeck.scripted"."""
    provider = getattr(getattr(model, "settings", None), "provider", None)
    if provider in ("openai", "responses"):
        return "openai"
    return str(provider) if isinstance(provider, str) else "tooldeck.scripted"


def one_result_per_call(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> list[ToolResult]:
    """Results in the model's order, exactly one per call id, whatever the runner returned.

    A runner that loses a result is a bug, but the model must still get an answer for every
    call it made, or the next request is rejected by the provider.
    """
    by_id: dict[str, ToolResult] = {}
    for result in results:
        by_id.setdefault(result.call_id, result)
    out: list[ToolResult] = []
    for call in calls:
        found = by_id.get(call.id)
        if found is None:
            error = ErrorEnvelope("tool_error", "the executor returned no result for this call", call.name)
            found = ToolResult(call_id=call.id, name=call.name, content=error.to_json(), error=error)
        out.append(found)
    return out


def _with_unique_ids(reply: ModelReply) -> ModelReply:
    """The reply with every tool call under an id of its own, whatever client produced it: two
    calls sharing an id would both be answered with the first one's result."""
    calls = reply.tool_calls
    if not calls or (len({c.id for c in calls}) == len(calls) and all(c.id for c in calls)):
        return reply
    message = replace(reply.message, tool_calls=tuple(unique_ids(calls, "call")))
    return replace(reply, message=message)


def check_iterations(max_iterations: int | None) -> None:
    """Refuse an iteration budget that is not a whole number of at least one model call."""
    if max_iterations is None:
        return
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int):
        raise TypeError(f"max_iterations must be an int >= 1, got {type(max_iterations).__name__}")
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be >= 1, got {max_iterations}")
