"""What runs items: one `ItemRunner` per worker process (a local pool process or a Ray actor).

The runner loads the deck once and builds one model client; every item then gets its own
folder (`workspace/` for the file tools, `home/` for its memory files and spilled results,
`transcript.json` written when it ends, however it ends), an `ItemDeck` view with that folder in
its config, and a fresh `Agent` over the shared deck and model. Its session lives in an
in-memory session database of its own: items never see each other's sessions (through
`session_search`), and no item waits for another's disk writes (SQLite commits are synchronous
and would stall every item of the worker's event loop); only an item that ends awaiting approval
has its session copied to its home (`home/state.db`), where a later run continues it. Approvals fail closed: nobody is there to answer, so a tool that
needs approval is refused unless the config says `approvals.mode: allow` — or, with
`approvals.unattended: interrupt`, the item ends `awaiting_approval` with the calls that wait. The concurrent items
of one worker share a `RateLimiter`: a 429 pauses all of them, and `max_rps` spaces their calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck import Config
from tooldeck._utils.jsonl import id_key
from tooldeck._utils.text import json_text
from tooldeck.agent.events import Event, ModelReplied, ToolResultReady
from tooldeck.agent.messages import ModelReply, Usage
from tooldeck.agent.models.base import ModelClient, ModelRequest, ModelSettings
from tooldeck.agent.models.retry import RateLimiter, call_with_retries
from tooldeck.agent.sessions import SessionStore
from tooldeck.batch.items import BatchItem, ItemId
from tooldeck.batch.results import ItemResult, Status, ToolCallRecord
from tooldeck.batch.view import ItemDeck, UnknownItemTools
from tooldeck.errors import DecisionError, ModelError, SessionError

if TYPE_CHECKING:
    from tooldeck import Deck
    from tooldeck.agent.events import EventSink
    from tooldeck.agent.loop import Conversation, TurnResult
    from tooldeck.agent.runtime import Agent

# An item's stored session (only one that ends awaiting approval is stored), in its home.
SESSIONS_FILE = "state.db"


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """Everything a worker needs, as plain picklable values (it may run on another machine)."""

    config: Config
    model: ModelSettings
    workdir: str
    platform: str | None = None
    max_iterations: int | None = None
    timeout_s: float | None = None
    concurrency: int = 4
    max_rps: float | None = None  # this worker's share of the run's rate


class LimitedModel:
    """A model client whose retries go through a limiter shared by the worker's items."""

    def __init__(self, settings: ModelSettings, limiter: RateLimiter) -> None:
        from tooldeck.agent.models.factory import make_model

        self.settings = settings
        self.limiter = limiter
        # The inner client never retries: every retry happens here, under the shared limiter.
        self.inner: ModelClient = make_model(dataclasses.replace(settings, max_retries=0, stream=False))

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    async def complete(self, request: ModelRequest, *, events: EventSink | None = None) -> ModelReply:
        return await call_with_retries(
            lambda: self.inner.complete(request, events=events),
            self.settings,
            events=events,
            limiter=self.limiter,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class ItemTrace:
    """The event sink of one item: what it did so far, kept even when it times out or fails."""

    def __init__(self) -> None:
        self.iterations = 0
        self.usage = Usage()
        self.calls: list[ToolCallRecord] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, ModelReplied):
            self.iterations = max(self.iterations, event.iteration)
            self.usage = self.usage + event.usage
        elif isinstance(event, ToolResultReady):
            error = event.result.error
            self.calls.append(ToolCallRecord(event.result.name, error.type if error is not None else None))


def item_dirname(item_id: ItemId) -> str:
    """A folder name for an item: readable, safe whatever the id holds, unique per id."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", str(item_id)).strip("._-")[:48] or "item"
    digest = hashlib.sha256(id_key(item_id).encode()).hexdigest()[:10]
    return f"{readable}-{digest}"


class ItemRunner:
    """Runs items one at a time or many at once, on one deck and one model client."""

    def __init__(self, spec: WorkerSpec, *, worker: str, deck: Deck | None = None) -> None:
        from tooldeck import Deck

        self.spec = spec
        self.worker = f"{worker}/{os.getpid()}"
        self.workdir = Path(spec.workdir)
        if deck is None:
            # Each item works in its own folder under workdir: the config's own workspace is
            # never used, so it must not hide the file tools when it does not exist here.
            self.workdir.mkdir(parents=True, exist_ok=True)
            sandbox = dataclasses.replace(spec.config.sandbox, workspace=str(self.workdir))
            deck = Deck(spec.config.replace(sandbox=sandbox))
        self.deck = deck
        self.deck.loadout(spec.platform, agent=True)  # assemble once now: a config problem shows at start-up
        self.limiter = RateLimiter(max_rps=spec.max_rps)
        self.model = LimitedModel(spec.model, self.limiter)

    async def run(self, item: BatchItem, attempt: int = 1) -> ItemResult:
        """One item, start to end (or continued from approval); never raises for a failure of
        the item itself."""
        from tooldeck.agent.runtime import Agent

        started = time.monotonic()
        folder = self.workdir / item_dirname(item.id)
        trace = ItemTrace()
        try:
            view, store = self._prepare(item, folder)
        except (UnknownItemTools, OSError, SessionError) as exc:
            return ItemResult.failed(item, str(exc), attempts=attempt, worker=self.worker)
        agent = Agent(
            view,
            self.model,
            platform=self.spec.platform,
            store=store,
            approver=None,
            events=trace,
            max_iterations=self.spec.max_iterations,
        )
        convo: Conversation | None = None
        status: Status = "error"
        turn: TurnResult | None = None
        error: str | None = None
        try:
            convo, turn = await self._turn(agent, item)
            status, error = _judge(turn, agent.max_iterations)
        except TimeoutError:
            status, error = "timeout", f"the item did not finish within {self.spec.timeout_s:g} s"
        except DecisionError as exc:
            error = f"decision refused, nothing was run: {exc}"
        except (ModelError, SessionError) as exc:
            error = str(exc)
        except Exception as exc:  # the item's boundary: one broken item must not end the worker
            error = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            if status == "awaiting_approval" and item.resume is None:
                error = _keep_session(store, folder)
                status = "error" if error else status
            store.close()
        if convo is not None:
            write_transcript(folder / "transcript.json", convo, turn, status, error)
        usage = turn.usage if turn is not None else trace.usage
        return ItemResult(
            item.id,
            status,
            text=turn.text if turn is not None else "",
            finish=turn.status if turn is not None else None,
            iterations=turn.iterations if turn is not None else trace.iterations,
            tool_calls=tuple(trace.calls),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            cache_read_input_tokens=usage.cache_read_input_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens,
            wall_s=time.monotonic() - started,
            error=error,
            session_id=convo.session_id if convo is not None else None,
            workspace=str(folder / "workspace"),
            attempts=attempt,
            worker=self.worker,
            metadata=item.metadata,
            pending=tuple(turn.pending) if turn is not None and status == "awaiting_approval" else (),
        )

    async def _turn(self, agent: Agent, item: BatchItem) -> tuple[Conversation, TurnResult]:
        """The item's turn: its prompt in a new conversation, or its stored turn decided."""
        if item.resume is None:
            convo = agent.new_conversation(system=item.system)
            return convo, await asyncio.wait_for(agent.run(convo, item.prompt), self.spec.timeout_s)
        convo = agent.resume(item.resume.session_id)
        turn = agent.resume(convo, item.resume.decisions)
        return convo, await asyncio.wait_for(turn, self.spec.timeout_s)

    def _prepare(self, item: BatchItem, folder: Path) -> tuple[ItemDeck, SessionStore]:
        """A fresh folder for the item (a retried item does not see its dead attempt's files) and
        a session store in memory; a continued item keeps its folder and stored session."""
        view = ItemDeck(self.deck, workspace=folder / "workspace", home=folder / "home", tools=item.tools)
        view.check_tools(self.spec.platform)
        if item.resume is not None:
            stored = folder / "home" / SESSIONS_FILE
            if not stored.is_file():
                raise OSError(
                    f"the item's stored session is gone ({stored} does not exist); it cannot be resumed"
                )
            return view, SessionStore(stored)
        if folder.exists():
            shutil.rmtree(folder)
        (folder / "workspace").mkdir(parents=True)
        (folder / "home").mkdir()
        return view, SessionStore(":memory:")

    async def aclose(self) -> None:
        await self.model.aclose()
        self.deck.close()


def _keep_session(store: SessionStore, folder: Path) -> str | None:
    """Keep the session of an item awaiting approval in its home, where a later `tooldeck batch
    --resume --approve ITEM:CALL_ID` continues it (with the signing key and the held effects
    already there); why it could not be kept, or None."""
    try:
        store.copy_to(folder / "home" / SESSIONS_FILE)
    except (SessionError, OSError) as exc:
        return f"the item awaits approval but its session could not be kept, so it cannot be resumed: {exc}"
    return None


def _judge(turn: TurnResult, budget: int) -> tuple[Status, str | None]:
    if turn.status == "done":
        return "ok", None
    if turn.pending:
        return "awaiting_approval", None
    if turn.status == "budget_exhausted":
        return "error", f"the iteration budget ({budget}) ran out before the agent answered"
    return "error", f"the agent asked a question nobody can answer in a batch: {turn.question}"


def write_transcript(
    path: Path, convo: Conversation, turn: TurnResult | None, status: Status, error: str | None
) -> None:
    """The item's conversation as JSON beside its workspace (best effort: the result line is the record)."""
    data = {
        "session_id": convo.session_id,
        "system": convo.system,
        "messages": [m.to_dict() for m in convo.messages],
        "state": convo.state.to_json(),
        "finish": turn.status if turn is not None else None,
        "status": status,
        "error": error,
    }
    text = json_text(data, indent=1)
    with contextlib.suppress(OSError):
        path.write_text(text, encoding="utf-8")
