"""Building blocks for agent tests: small tools, a deck over them, an Agent talking to the
scripted server through a real SDK."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from tooldeck import parse_config, tool
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.tool import Tool
from tooldeck._deck import Deck
from tooldeck.agent.events import EventLog
from tooldeck.agent.models.base import ModelSettings, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.runtime import Agent
from tooldeck.agent.sessions import SessionStore

PROVIDERS: tuple[Provider, ...] = ("openai", "responses", "anthropic")


class Endpoint(Protocol):
    """Where a model is pointed: a scripted server, or the address of one that has stopped."""

    @property
    def openai_url(self) -> str: ...


@tool(toolset="math")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(toolset="math")
def explode(message: str) -> str:
    """Always fails, with `message`."""
    raise RuntimeError(message)


class Gauge:
    """Counts calls in flight and remembers the peak (for concurrency assertions)."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.now = 0
        self.peak = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.lock.notify_all()

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1

    def wait_for_company(self, count: int, timeout: float = 10.0) -> None:
        """Inside the gauge: wait (at most `timeout`) until `count` calls are in flight, so calls
        that may overlap are seen to, however late a loaded machine starts them."""
        with self.lock:
            self.lock.wait_for(lambda: self.now >= count, timeout=timeout)


SLOW_GAUGE = Gauge()


@tool(toolset="slow")
async def slow_echo(text: str, seconds: float = 0.2) -> str:
    """Echo `text` after a pause."""
    with SLOW_GAUGE:
        await asyncio.sleep(seconds)
    return text


@tool(toolset="slow")
def sync_sleep(seconds: float) -> str:
    """Sleep in a worker thread."""
    time.sleep(seconds)
    return "slept"


@tool(toolset="danger", requires_approval=True)
def launch(target: str) -> str:
    """Launch something that needs the user's approval."""
    return f"launched {target}"


TEST_TOOLS: list[Tool] = [add, explode, slow_echo, sync_sleep, launch]


def deck_with(toolsets: Sequence[str], **config: Any) -> Deck:
    """A deck with the built-in tools plus TEST_TOOLS, exposing only `toolsets` on platform cli."""
    data = {"platform_toolsets": {"cli": list(toolsets)}, **config}
    return Deck(parse_config(data), tools=TEST_TOOLS)


def loadout_of(toolsets: Sequence[str], **config: Any) -> Loadout:
    """An agent run's loadout (with the tools only an agent run can use)."""
    return deck_with(toolsets, **config).loadout(agent=True)


def settings_for(server: Endpoint, provider: Provider, *, stream: bool = False, **kw: Any) -> ModelSettings:
    # Anthropic takes the host root; pass the /v1 form to prove it is tolerated.
    kw.setdefault("retry_initial_s", 0.01)
    return ModelSettings(
        provider=provider, model="scripted-model", base_url=server.openai_url, stream=stream, **kw
    )


def make_agent(
    server: Endpoint,
    provider: Provider,
    home: Path,
    toolsets: Sequence[str] = ("math",),
    *,
    stream: bool = False,
    max_iterations: int = 90,
    events: EventLog | None = None,
    deck: Deck | None = None,
    **agent_config: Any,
) -> tuple[Agent, EventLog]:
    """An agent over the scripted server; its home and workspace are `home`."""
    log = events or EventLog()
    if deck is None:
        config = {"home": str(home), "sandbox": {"workspace": str(home)}, "agent": agent_config}
        deck = deck_with(toolsets, **config)
    agent = deck.agent(
        make_model(settings_for(server, provider, stream=stream)),
        store=SessionStore(home / "state.db"),
        events=log,
        max_iterations=max_iterations,
    )
    return agent, log
