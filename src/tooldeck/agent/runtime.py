"""`Agent`: wires a loadout, a model client, the execution engine, sessions and the agent-level
services together, and hands each turn to the small `AgentLoop`.

    agent = Agent.from_deck(Deck.load(), make_model(settings))
    convo = agent.new_conversation()
    result = await agent.run(convo, "What is in README.md?")

Sub-agents (`delegate_task`) are spawned here: a child session, the scoped loadout, the
parent's model, policy, approver and workspace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.agent.builtins.delegate import SUBAGENT_SYSTEM, Delegator, SubOutcome
from tooldeck.agent.builtins.memory import MemoryFiles, MemoryLimits
from tooldeck.agent.events import EventSink, null_sink
from tooldeck.agent.loop import AgentLoop, Conversation, LoopSettings, TurnResult
from tooldeck.agent.messages import Message
from tooldeck.agent.models.base import ModelClient
from tooldeck.agent.services import SERVICES_KEY, AgentServices, tooldeck_home
from tooldeck.agent.sessions import SessionStore, new_session_id
from tooldeck.agent.toolview import ToolView, promoted_names
from tooldeck.assembly.loadout import Loadout
from tooldeck.execution.executor import Executor
from tooldeck.execution.policy import Approver, Policy
from tooldeck.execution.settings import ExecutionSettings
from tooldeck.execution.types import ErrorEnvelope

if TYPE_CHECKING:
    from tooldeck.config import Config
    from tooldeck.deck import Deck

DEFAULT_SYSTEM = (
    "You are a capable assistant with tools. Use them to do what the user asks, check your work, and "
    "answer plainly. When a request is ambiguous or a decision belongs to the user, ask with clarify "
    "instead of guessing."
)


@dataclass(frozen=True, slots=True)
class AgentSettings:
    max_iterations: int = 90
    system_prompt: str | None = None
    delegation_max_concurrency: int = 3
    delegation_timeout_s: float = 600.0
    delegation_max_iterations: int | None = None

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> AgentSettings:
        a = config.agent
        values: dict[str, Any] = {
            "max_iterations": a.max_iterations,
            "system_prompt": a.system_prompt,
            "delegation_max_concurrency": a.delegation_max_concurrency,
            "delegation_timeout_s": a.delegation_timeout_s,
            "delegation_max_iterations": a.delegation_max_iterations,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


class Agent:
    """One agent: a loadout and a model, plus where its sessions and memory live."""

    def __init__(
        self,
        loadout: Loadout,
        model: ModelClient,
        *,
        store: SessionStore | None = None,
        memory: MemoryFiles | None = None,
        settings: AgentSettings | None = None,
        execution: ExecutionSettings | None = None,
        policy: Policy | None = None,
        approver: Approver | None = None,
        events: EventSink | None = None,
        home: Path | None = None,
        delegate_model: ModelClient | None = None,
    ) -> None:
        self.loadout = loadout
        self.model = model
        # Sub-agents use the parent's model unless this overrides it.
        self.delegate_model = delegate_model
        self.store = store
        self.home = home or tooldeck_home()
        self.memory = memory or MemoryFiles(self.home)
        self.settings = settings or AgentSettings()
        self.execution = execution or ExecutionSettings()
        self.policy = policy
        self.approver = approver
        self.events = events or null_sink
        # One loop (and so one executor, with its session-scoped approval grants) per conversation.
        self._loops: dict[str, tuple[Conversation, AgentLoop]] = {}

    @classmethod
    def from_deck(
        cls,
        deck: Deck,
        model: ModelClient,
        *,
        platform: str | None = None,
        store: SessionStore | None = None,
        events: EventSink | None = None,
        approver: Approver | None = None,
        policy: Policy | None = None,
        max_iterations: int | None = None,
        delegate_model: ModelClient | None = None,
    ) -> Agent:
        cfg = deck.config
        home = tooldeck_home(cfg.home, base_dir=cfg.base_dir)
        if store is None:
            db = cfg.resolve_path(cfg.agent.sessions_db) if cfg.agent.sessions_db else home / "state.db"
            store = SessionStore(db)
        limits = MemoryLimits(cfg.agent.memory_max_chars, cfg.agent.user_max_chars)
        return cls(
            deck.loadout(platform),
            model,
            store=store,
            memory=MemoryFiles(home, limits=limits),
            settings=AgentSettings.from_config(cfg, max_iterations=max_iterations),
            execution=ExecutionSettings.from_config(cfg),
            policy=policy,
            approver=approver,
            events=events,
            home=home,
            delegate_model=delegate_model,
        )

    # -- sessions --------------------------------------------------------------------------

    def system_prompt(self, loadout: Loadout | None = None) -> str:
        """The base prompt, the deferred tools by name (D1), and the memory snapshot (L3)."""
        loadout = loadout or self.loadout
        parts = [self.settings.system_prompt or DEFAULT_SYSTEM]
        if loadout.deferred and "tool_search" in loadout.exposed_names:
            names = ", ".join(loadout.deferred_names)
            parts.append(f"More tools are available but not loaded; call tool_search to load them: {names}")
        snapshot = self.memory.snapshot() if "memory" in loadout.exposed_names else ""
        if snapshot:
            parts.append(snapshot)
        return "\n\n".join(parts)

    def new_conversation(
        self, *, system: str | None = None, parent_id: str | None = None, model: ModelClient | None = None
    ) -> Conversation:
        system = system if system is not None else self.system_prompt()
        if self.store is None:
            return Conversation(new_session_id(), system)
        sid = self.store.create(model=(model or self.model).model_name, system=system, parent_id=parent_id)
        return Conversation(sid, system)

    def resume(self, session_id: str) -> Conversation:
        """A stored session, ready to continue; calls left unanswered by a crash get an error result."""
        if self.store is None:
            raise ValueError("this agent has no session store to resume from")
        stored = self.store.load(session_id)
        convo = Conversation(
            stored.id, stored.system, list(stored.messages), dict(stored.state), stored.interrupt
        )
        for message in unanswered_calls(convo.messages):
            convo.messages.append(message)
            self.store.append_message(convo.session_id, message)
        return convo

    # -- turns -----------------------------------------------------------------------------

    async def run(self, convo: Conversation, prompt: str | None) -> TurnResult:
        """One turn of `convo`: the user's message (or a clarify answer) until the model answers."""
        cached = self._loops.get(convo.session_id)
        if cached is None or cached[0] is not convo:
            loop = self._loop(
                convo, self.loadout, self.settings.max_iterations, delegate=True, events=self.events
            )
            cached = self._loops[convo.session_id] = (convo, loop)
        return await cached[1].run(convo, prompt)

    def _loop(
        self,
        convo: Conversation,
        loadout: Loadout,
        max_iterations: int,
        *,
        delegate: bool,
        events: EventSink,
        model: ModelClient | None = None,
    ) -> AgentLoop:
        delegator = None
        if delegate and "delegate_task" in loadout.exposed_names:
            delegator = Delegator(
                loadout,
                self._spawn,
                max_concurrency=self.settings.delegation_max_concurrency,
                timeout_s=self.settings.delegation_timeout_s,
            )
        services = AgentServices(home=self.home, memory=self.memory, store=self.store, delegator=delegator)
        execution = _with_promoted(self.execution, loadout, convo.state)
        runner = Executor(
            loadout,
            settings=execution,
            policy=self.policy,
            approver=self.approver,
            session_id=convo.session_id,
            spill_dir=self.home / "spill",
            extra={SERVICES_KEY: services},
        )
        return AgentLoop(
            model or self.model,
            runner=runner,
            tools=ToolView(loadout),
            recorder=self.store,
            events=events,
            settings=LoopSettings(max_iterations=max_iterations),
        )

    async def _spawn(self, loadout: Loadout, prompt: str, parent_id: str | None) -> SubOutcome:
        convo = self.new_conversation(system=SUBAGENT_SYSTEM, parent_id=parent_id, model=self.delegate_model)
        budget = self.settings.delegation_max_iterations or self.settings.max_iterations
        loop = self._loop(convo, loadout, budget, delegate=False, events=null_sink, model=self.delegate_model)
        result = await loop.run(convo, prompt)
        return SubOutcome(result.status, result.text, convo.session_id, result.iterations)

    async def aclose(self) -> None:
        await self.model.aclose()
        if self.delegate_model is not None:
            await self.delegate_model.aclose()
        if self.store is not None:
            self.store.close()


def _with_promoted(
    settings: ExecutionSettings, loadout: Loadout, state: Mapping[str, Any]
) -> ExecutionSettings:
    from dataclasses import replace

    return replace(settings, promoted=lambda: promoted_names(state, loadout))


def unanswered_calls(messages: list[Message]) -> list[Message]:
    """Error results for tool calls that never got one (the process died mid-batch).

    Providers reject a history where a call has no result; the model learns the call did not run.
    """
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    out = []
    for m in messages:
        for call in m.tool_calls:
            if call.id not in answered:
                error = ErrorEnvelope(
                    "cancelled", "the run stopped before this call finished; it may not have run", call.name
                )
                out.append(
                    Message("tool", error.to_json(), tool_call_id=call.id, name=call.name, is_error=True)
                )
                answered.add(call.id)
    return out
