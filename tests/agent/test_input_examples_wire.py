"""A tool's example arguments on the wire, through the official SDKs: Anthropic's
`input_examples` field with the beta header it needs (beside a beta the config's headers
already ask for), the examples in the description for Chat Completions and Responses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import PROVIDERS, settings_for
from tooldeck import Deck, parse_config, tool
from tooldeck.agent.models.anthropic import TOOL_EXAMPLES
from tooldeck.agent.models.base import Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

EXAMPLES = [{"city": "Lima", "days": 2}, {"city": "Oslo"}]


@tool(toolset="weather", examples=EXAMPLES)
def forecast(city: str, days: int = 1) -> str:
    """The weather to come."""
    return f"sunny in {city}"


def first_request(server: ScriptedServer, provider: Provider, home: Path, **settings: Any) -> Recorded:
    config = {"platform_toolsets": {"cli": ["weather"]}, "home": str(home), "plugins": {"enabled": False}}
    deck = Deck(parse_config(config), tools=[forecast], builtins=False)
    agent = deck.agent(make_model(settings_for(server, provider, **settings)), store=False)
    server.add(Turn("ok"))

    async def main() -> None:
        try:
            await agent.run(agent.new_conversation(), "weather?")
        finally:
            await agent.aclose()

    asyncio.run(main())
    return server.requests[-1]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_examples_reach_each_provider_as_it_takes_them(
    scripted_server: ScriptedServer, provider: Provider, home: Path
) -> None:
    request = first_request(scripted_server, provider, home)
    [sent] = request.body["tools"]
    if provider == "anthropic":
        assert sent["input_examples"] == EXAMPLES
        assert sent["description"] == "The weather to come."
        assert TOOL_EXAMPLES in request.headers["anthropic-beta"].split(",")
        return
    description = sent["function"]["description"] if provider == "openai" else sent["description"]
    assert "input_examples" not in str(sent.keys())
    assert description.startswith("The weather to come.\n\nExamples of arguments:\n")
    assert '{"city": "Lima", "days": 2}' in description and '{"city": "Oslo"}' in description


def test_the_examples_beta_joins_the_betas_the_config_asks_for(
    scripted_server: ScriptedServer, home: Path
) -> None:
    request = first_request(
        scripted_server, "anthropic", home, extra_headers={"anthropic-beta": "some-beta-1"}
    )
    assert request.headers["anthropic-beta"].split(",") == ["some-beta-1", TOOL_EXAMPLES]
