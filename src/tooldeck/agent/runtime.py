"""`Agent`: a model and a source of loadouts (a `Deck`), run turn by turn.

    agent = deck.agent(model)
    convo = agent.new_conversation()
    result = await agent.run(convo, "What is in README.md?")

The agent assembles the loadout again for every model call (cheap: the deck caches it by the
availability it saw), so a tool whose check flips, or a source whose tools change, is seen at
the next call. It wires the small `AgentLoop` to the model, a `SessionRunner` (the execution
engine over the current loadout), the session store and the events; sub-agents
(`delegate_task`) are spawned here on a scoped view of the same loadouts.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, overload

from tooldeck._utils.home import tooldeck_home
from tooldeck.agent.builtins.delegate import SUBAGENT_SYSTEM, Delegator, SubOutcome
from tooldeck.agent.channel import AgentChannel
from tooldeck.agent.config import AgentConfig
from tooldeck.agent.events import EventSink, null_sink
from tooldeck.agent.held_effects import HeldEffects
from tooldeck.agent.interrupts import ApprovalDecision, HeldBatch
from tooldeck.agent.loop import AgentLoop, Conversation, TurnResult, check_iterations
from tooldeck.agent.messages import Message
from tooldeck.agent.models.base import ModelClient, ModelSettings
from tooldeck.agent.runner import SessionRunner
from tooldeck.agent.services import AgentServices, memory_files, sessions_db
from tooldeck.agent.sessions import SessionStore, new_session_id
from tooldeck.agent.toolview import ToolView
from tooldeck.agent.vision import vision_service
from tooldeck.core import AlwaysGrants, Approver, ErrorEnvelope, Loadout, Policy, ToolChannel, ToolRendering
from tooldeck.errors import DecisionError
from tooldeck.tools.scope import SessionScope
from tooldeck.tools.vision import VisionService

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig, Session

# The built-in memory tool (its memory snapshot joins the system prompt when it is exposed).
MEMORY_TOOL = "tooldeck.agent.tools:memory"

DEFAULT_SYSTEM = (
    "You are a capable assistant with tools. Use them to do what the user asks, check your work, and "
    "answer plainly. When a request is ambiguous or a decision belongs to the user, ask with clarify "
    "instead of guessing."
)


class LoadoutSource(Protocol):
    """What the agent needs from a deck: its config, the current loadout of a platform, and
    sessions to run calls in (`Deck.session`)."""

    @property
    def config(self) -> CoreConfig: ...

    def loadout(self, platform: str | None = None, *, agent: bool = False) -> Loadout: ...

    def session(
        self,
        *,
        platform: str | None = ...,
        approver: Approver | None = ...,
        policy: Policy | None = ...,
        session_id: str | None = ...,
        direct: bool = ...,
        agent: bool = ...,
        services: Mapping[type, object] | None = ...,
    ) -> Session: ...


class Agent:
    """One agent: a deck's tools and a model, plus where its sessions and memory live."""

    def __init__(
        self,
        deck: LoadoutSource,
        model: ModelClient,
        *,
        platform: str | None = None,
        store: SessionStore | Literal[False] | None = None,
        policy: Policy | None = None,
        approver: Approver | None = None,
        events: EventSink | None = None,
        delegate_model: ModelClient | None = None,
        delegate_vision: bool = False,
        max_iterations: int | None = None,
    ) -> None:
        check_iterations(max_iterations)
        cfg = deck.config
        self.deck = deck
        self.config = cfg
        self.platform = platform
        self.model = model
        # Sub-agents use the parent's model unless this overrides it.
        self.delegate_model = delegate_model
        # Whether that other model reads images in tool results (the parent's is
        # `model.supports_vision`); a model that does not gets their description only.
        self.delegate_vision = delegate_vision
        self.home = tooldeck_home(cfg.home, base_dir=cfg.base_dir)
        # None: the configured session database; False: sessions kept in memory only.
        if store is None:
            store = SessionStore(sessions_db(cfg))
        self.store: SessionStore | None = store or None
        self.memory = memory_files(cfg)
        self.max_iterations = (
            cfg.section(AgentConfig).max_iterations if max_iterations is None else max_iterations
        )
        self.policy = policy
        self.approver = approver
        self.events = events or null_sink
        # One loop (and so one runner, with its session-scoped approval grants) per conversation.
        self._loops: dict[str, tuple[Conversation, AgentLoop]] = {}
        self._scopes: dict[str, SessionScope] = {}

    def loadout(self) -> Loadout:
        """The loadout as assembled now, for an agent run."""
        return self.deck.loadout(self.platform, agent=True)

    # -- sessions --------------------------------------------------------------------------

    def system_prompt(self, loadout: Loadout | None = None) -> str:
        """The base prompt and the memory snapshot (stored with the session). The loop adds the
        deferred tools by name to each request, as the catalog is at that moment."""
        loadout = loadout or self.loadout()
        parts = [self.config.section(AgentConfig).system_prompt or DEFAULT_SYSTEM]
        exposed = loadout.get("memory")
        # The built-in memory tool (not a tool of another source that took its name).
        if (
            exposed is not None
            and exposed.source == "builtin"
            and exposed.owner == MEMORY_TOOL
            and not loadout.is_deferred(exposed.name)
        ):
            snapshot = self.memory.snapshot()
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

    @overload
    def resume(self, session: str) -> Conversation: ...

    @overload
    def resume(
        self, session: Conversation, decisions: Mapping[str, ApprovalDecision]
    ) -> Coroutine[Any, Any, TurnResult]: ...

    def resume(
        self, session: str | Conversation, decisions: Mapping[str, ApprovalDecision] | None = None
    ) -> Conversation | Coroutine[Any, Any, TurnResult]:
        """`resume(session_id)`: a stored session, ready to continue (calls left unanswered by a
        crash get an error result). `await resume(conversation, decisions)`: continue a turn
        that stopped at approval, with a decision per pending call id (see
        `tooldeck.agent.interrupts`); a decision for a call that is not pending raises
        `DecisionError` before anything runs."""
        if isinstance(session, Conversation):
            return self._decide(session, decisions or {})
        if self.store is None:
            raise ValueError("this agent has no session store to resume from")
        stored = self.store.load(session)
        convo = Conversation(stored.id, stored.system, list(stored.messages), stored.state, stored.interrupt)
        held = HeldBatch.load(stored.interrupt)
        for message in unanswered_calls(convo.messages, held.answered_ids() if held else ()):
            convo.messages.append(message)
            self.store.append_message(convo.session_id, message)
        return convo

    async def _decide(self, convo: Conversation, decisions: Mapping[str, ApprovalDecision]) -> TurnResult:
        held = HeldBatch.load(convo.pending)
        if held is None:
            raise DecisionError(f"session {convo.session_id} is not waiting for an approval")
        loop = self._loop_of(convo)
        runner = loop.runner
        assert isinstance(runner, SessionRunner)
        session = runner.session
        trusted = AlwaysGrants(self.home / "grants.jsonl", session.workspace.root)
        for record in held.pending:
            if str(record.get("call_id")) in decisions and not trusted.verify_pending(
                convo.session_id, record
            ):
                raise DecisionError(
                    f"pending call {record.get('call_id')!r} of session {convo.session_id} is not one "
                    "tooldeck signed in this home (changed outside tooldeck); it is not run"
                )
        before = held.to_json()
        effects = HeldEffects(held, decisions, home=self.home, workspace=session.workspace)
        effects.check()  # a conflicting change refuses the decision before anything is claimed
        calls = held.take(decisions)
        # Claimed before anything runs: a second process deciding the same calls finds them gone.
        if self.store is not None and not self.store.claim_interrupt(
            convo.session_id, before, held.to_json()
        ):
            raise DecisionError(f"the pending calls of session {convo.session_id} were decided meanwhile")
        convo.pending = held.to_json()
        held.add(effects.settle(self.config, convo.session_id), images=False)
        calls = [(c, a) for c, a in calls if c.id not in effects.ids]
        for call, arguments in calls:
            session.grants.decide(call.id, call.name, arguments, decisions[call.id].answer())
        return await loop.resume(convo, held, [c for c, _ in calls])

    def _loop_of(self, convo: Conversation) -> AgentLoop:
        cached = self._loops.get(convo.session_id)
        if cached is None or cached[0] is not convo:
            loop = self._loop(convo, self.loadout, self.max_iterations, delegate=True, events=self.events)
            cached = self._loops[convo.session_id] = (convo, loop)
        return cached[1]

    # -- turns -----------------------------------------------------------------------------

    async def run(self, convo: Conversation, prompt: str | None) -> TurnResult:
        """One turn of `convo`: the user's message (or a clarify answer) until the model answers."""
        if HeldBatch.load(convo.pending) is not None:
            raise DecisionError(
                f"session {convo.session_id} is waiting for approval of calls; decide them with "
                "agent.resume(conversation, decisions)"
            )
        return await self._loop_of(convo).run(convo, prompt)

    def _loop(
        self,
        convo: Conversation,
        loadouts: Callable[[], Loadout],
        max_iterations: int,
        *,
        delegate: bool,
        events: EventSink,
        model: ModelClient | None = None,
    ) -> AgentLoop:
        delegator = None
        if delegate:
            agent_cfg = self.config.section(AgentConfig)
            delegator = Delegator(
                loadouts,
                self._spawn,
                max_concurrency=agent_cfg.delegation_max_concurrency,
                timeout_s=agent_cfg.delegation_timeout_s,
            )
        services = AgentServices(home=self.home, memory=self.memory, store=self.store, delegator=delegator)
        offered: dict[type, object] = {AgentServices: services, SessionScope: self._scope(convo.session_id)}
        vision = vision_service(model or self.model)
        if vision is not None:
            offered[VisionService] = vision
        offered[ToolRendering] = tool_rendering(model or self.model, self.config)
        # A running tool's progress and logs become events; it may ask this loop's model.
        offered[ToolChannel] = AgentChannel(model or self.model, events, lambda: self.approver)
        view = ToolView(loadouts)
        session = self.deck.session(
            platform=self.platform,
            approver=self.approver,
            policy=self.policy,
            session_id=convo.session_id,
            direct=False,
            agent=True,
            services=offered,
        )
        # A top-level run can stop and wait for approvals (`approvals.unattended: interrupt`).
        session.grants.interruptible = delegate
        runner = SessionRunner(view, session)
        return AgentLoop(
            model or self.model,
            runner=runner,
            tools=view,
            recorder=self.store,
            events=events,
            max_iterations=max_iterations,
            name="tooldeck" if delegate else "tooldeck-subagent",
            images=(
                self.config.model.supports_vision if model in (None, self.model) else self.delegate_vision
            ),
        )

    async def _spawn(self, loadouts: Callable[[], Loadout], prompt: str, parent_id: str | None) -> SubOutcome:
        convo = self.new_conversation(system=SUBAGENT_SYSTEM, parent_id=parent_id, model=self.delegate_model)
        budget = self.config.section(AgentConfig).delegation_max_iterations or self.max_iterations
        loop = self._loop(
            convo, loadouts, budget, delegate=False, events=null_sink, model=self.delegate_model
        )
        try:
            result = await loop.run(convo, prompt)
        finally:  # a sub-agent's session ends with its task: release what its tools opened
            await self._scopes.pop(convo.session_id).aclose()
        return SubOutcome(result.status, result.text, convo.session_id, result.iterations)

    def _scope(self, session_id: str) -> SessionScope:
        """The session's resources (e.g. its browser context), released by `aclose`."""
        scope = self._scopes.get(session_id)
        if scope is None:
            scope = self._scopes[session_id] = SessionScope(session_id)
        return scope

    async def aclose(self) -> None:
        """End the agent's sessions (closing what their tools opened), the model and the store."""
        scopes, self._scopes = list(self._scopes.values()), {}
        for scope in scopes:
            await scope.aclose()
        await self.model.aclose()
        if self.delegate_model is not None:
            await self.delegate_model.aclose()
        if self.store is not None:
            self.store.close()


def tool_rendering(model: ModelClient, config: CoreConfig) -> ToolRendering:
    """How `model` receives tool schemas (its client's provider, strict mode and model name), for
    the definitions tool_search returns; a client without settings (the scripted model) gets
    config `model:`'s."""
    settings = getattr(model, "settings", None)
    if isinstance(settings, ModelSettings):
        return ToolRendering(settings.provider, settings.strict_tools, settings.model)
    return ToolRendering.for_config(config)


def unanswered_calls(messages: list[Message], waiting: Collection[str] = ()) -> list[Message]:
    """Error results for tool calls that never got one (the process died mid-batch); calls in
    `waiting` (a batch held for approval) are not lost, and get none.

    Providers reject a history where a call has no result; the model learns the call did not run.
    """
    answered = {m.tool_call_id for m in messages if m.role == "tool"} | set(waiting)
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


__all__ = ["DEFAULT_SYSTEM", "Agent", "LoadoutSource", "unanswered_calls"]
