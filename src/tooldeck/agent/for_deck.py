"""What the agent satellite brings to a deck: the services its calls are offered, and its agent.

`deck_services` is what a call made through a deck (not an agent run) is offered: the agent
services of the config's home (memory, session search), how `tool_search` renders what it
finds, and a vision service built from config `model:` the first time a tool asks a model
about an image. `deck_agent` is `Deck.agent`: the loop over a deck, its model from config
`model:` unless one is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict, Unpack

from tooldeck.agent.services import AgentServices, for_config
from tooldeck.core import Approver, CoreConfig, Policy, ToolRendering
from tooldeck.tools.vision import ImagePart, VisionService

if TYPE_CHECKING:
    from tooldeck.agent.events import EventSink
    from tooldeck.agent.models.base import ModelClient
    from tooldeck.agent.runtime import Agent, LoadoutSource
    from tooldeck.agent.sessions import SessionStore


def deck_services(config: CoreConfig) -> dict[type, object]:
    """See the module docstring (built once per deck config, never at call time)."""

    async def ask(image: ImagePart, question: str) -> str:
        from tooldeck.agent.vision import service_from_config
        from tooldeck.errors import ModelNotConfigured, ToolError

        try:
            service = service_from_config(config)
        except ModelNotConfigured as exc:
            raise ToolError(f"no model to ask: {exc}", type="unavailable") from None
        return await service.ask(image, question)

    return {
        AgentServices: for_config(config),
        # How tool_search renders what it finds: as config `model:` and `dialects:` say.
        ToolRendering: ToolRendering.for_config(config),
        VisionService: VisionService(ask, model=config.model.name or ""),
    }


class AgentOptions(TypedDict, total=False):
    """What `Deck.agent` passes on to `Agent` besides the deck and the model."""

    platform: str | None
    approver: Approver | None
    policy: Policy | None
    events: EventSink | None
    store: SessionStore | Literal[False] | None
    max_iterations: int | None
    delegate_model: ModelClient | None
    delegate_vision: bool


def deck_agent(
    deck: LoadoutSource, model: ModelClient | str | None, **options: Unpack[AgentOptions]
) -> Agent:
    """The agent loop over `deck`; `model` a client, a model name, or None for config `model:`."""
    from tooldeck.agent.runtime import Agent

    if model is None or isinstance(model, str):
        from tooldeck.agent.models.factory import make_model, resolve_model_settings

        config = deck.config
        settings = resolve_model_settings(
            config.model, model=model, strict_tools=config.dialects.openai.strict
        )
        model = make_model(settings)
    return Agent(deck, model, **options)


__all__ = ["AgentOptions", "deck_agent", "deck_services"]
