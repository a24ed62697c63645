"""An MCP server that asks back (elicitation, sampling, roots) and talks (progress, logging),
reached through tooldeck's own channels: the approver (`--yes`, a program's, nobody), the agent's
model for sampling when the config allows it, the workspace as the roots. A real SDK server
process (servers/asking_server.py), on both protocol revisions: "legacy" is the 2025-11-25
handshake (the server sends requests mid-call), "auto" finds the server speaks 2026-07-28 (it
answers `input_required` and the client retries)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooldeck import Elicitation
from tooldeck._core.execution.events import CollectingSink
from tooldeck.agent import ScriptedModel, call, reply
from tooldeck.core import AutoApprover, ElicitationRequest

from ..cli.clirun import tooldeck
from .mcpkit import deck_over

ASKING = Path(__file__).resolve().parent / "servers" / "asking_server.py"
PROTOCOLS = ("legacy", "auto")


def asking(protocol: str, **options: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(ASKING)],
        "protocol": protocol,
        "connect_timeout": 30,
        **options,
    }


def answer(result: Any) -> Any:
    """The JSON the server's tool returned, inside the untrusted-content frame of MCP results."""
    assert result.ok, result.content
    return first_json(result.content)


def first_json(text: str) -> Any:
    start = min(i for i in (text.find("{"), text.find("[")) if i >= 0)
    return json.JSONDecoder().raw_decode(text[start:])[0]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_servers_form_goes_to_the_approver(tmp_path: Path, protocol: str) -> None:
    with deck_over(tmp_path, {"ask": asking(protocol)}) as deck:
        # --yes: the form's defaults (the enum's default among them).
        got = answer(deck.call_sync("mcp__ask__ask_profile", {}, approver=AutoApprover()))
        assert got == {"action": "accept", "content": {"name": "Ada", "color": "green", "age": 36}}
        # Nobody to ask: declined, and the server hears so.
        assert answer(deck.call_sync("mcp__ask__ask_profile", {}))["action"] == "decline"

        asked: list[ElicitationRequest] = []

        class Person:
            def __init__(self, content: dict[str, Any]) -> None:
                self.content = content

            async def approve(self, request: Any) -> Any:
                raise AssertionError("not an approval")

            async def elicit(self, request: ElicitationRequest) -> Elicitation:
                asked.append(request)
                return Elicitation("accept", self.content)

        mine = answer(
            deck.call_sync("mcp__ask__ask_profile", {}, approver=Person({"name": "Bo", "color": "red"}))
        )
        assert mine == {"action": "accept", "content": {"name": "Bo", "color": "red", "age": 36}}
        assert asked[0].tool == "mcp__ask__ask_profile" and asked[0].message == "Tell me about you"
        assert asked[0].schema["properties"]["color"]["enum"] == ["red", "green", "blue"]
        # An answer outside the form (not one of the enum's options) never reaches the server.
        bad = answer(deck.call_sync("mcp__ask__ask_profile", {}, approver=Person({"color": "purple"})))
        assert bad["action"] == "decline"


def test_tooldeck_call_yes_answers_a_servers_form_with_its_defaults(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    servers = {"ask": asking("auto")}
    config.write_text(
        yaml.safe_dump({"mcp_servers": servers, "plugins": {"enabled": False}, "home": str(tmp_path / "h")})
    )
    args = ("call", "mcp__ask__ask_profile", "--args", "{}", "--json", "--config", str(config))
    accepted = tooldeck(*args, "--yes")
    assert accepted.returncode == 0, accepted.stderr
    content = first_json(json.loads(accepted.stdout)["content"])
    assert content == {"action": "accept", "content": {"name": "Ada", "color": "green", "age": 36}}
    # Without --yes and without a terminal, nobody can be asked: declined.
    declined = tooldeck(*args)
    assert declined.returncode == 0, declined.stderr
    assert first_json(json.loads(declined.stdout)["content"])["action"] == "decline"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sampling_is_declined_unless_the_config_allows_it(tmp_path: Path, protocol: str) -> None:
    (tmp_path / "deny").mkdir()
    (tmp_path / "allow").mkdir()
    with deck_over(tmp_path / "deny", {"ask": asking(protocol)}) as deck:
        model = ScriptedModel([reply(calls=[call("mcp__ask__ask_model", {})]), reply("over")])
        agent = deck.agent(model, store=False)
        result = deck.run(agent.run(agent.new_conversation(), "go"))
        assert result.text == "over"
        assert len(model.requests) == 2  # the model was never asked the server's question
        [tool_message] = [m for m in model.requests[1].messages if m.role == "tool"]
        # Not declared to the server at all (so the server can say what it lacks).
        assert "did not declare the sampling capability" in tool_message.content

    with deck_over(tmp_path / "allow", {"ask": asking(protocol, sampling="allow")}) as deck:
        model = ScriptedModel(
            [reply(calls=[call("mcp__ask__ask_model", {})]), reply("teal"), reply("over")],
            model_name="scripted-3",
        )
        agent = deck.agent(model, store=False)
        result = deck.run(agent.run(agent.new_conversation(), "go"))
        assert result.text == "over"
        _first, asked, last = model.requests
        assert asked.loadout is None and asked.system == "Be brief."
        assert [(m.role, m.content) for m in asked.messages] == [("user", "Name a colour.")]
        [tool_message] = [m for m in last.messages if m.role == "tool"]
        assert first_json(tool_message.content) == {"text": "teal", "model": "scripted-3"}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_roots_are_the_workspace(tmp_path: Path, protocol: str) -> None:
    with deck_over(tmp_path, {"ask": asking(protocol)}) as deck:
        roots = answer(deck.call_sync("mcp__ask__show_roots", {}))
    assert roots == [(tmp_path / "workspace").resolve().as_uri()]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_progress_and_log_messages_become_events_of_the_call(tmp_path: Path, protocol: str) -> None:
    sink = CollectingSink()
    with deck_over(tmp_path, {"ask": asking(protocol)}) as deck, deck.session(events=sink) as session:
        result = session.call_sync("mcp__ask__chatty", {})
    assert result.ok and "done" in result.content
    [progress] = [e for e in sink.events if e.kind == "progress"]
    assert (progress.data["progress"], progress.data["total"], progress.message) == (1, 2, "half way")
    if protocol == "legacy":  # a 2026-07-28 server logs only to a client that opted in per request
        [logged] = [e for e in sink.events if e.kind == "log"]
        assert logged.message == "a note from the server" and logged.data["level"] == "info"


def test_asking_with_nobody_in_flight_is_declined() -> None:
    from tooldeck._core.sources.mcp.asks import Asks

    asks = Asks("s", sampling=True, roots=())
    import mcp_types

    form = mcp_types.ElicitRequestFormParams(
        message="?", requested_schema={"type": "object", "properties": {}}
    )
    got = asyncio.run(asks.elicit(None, form))
    assert got.action == "decline"
    params = mcp_types.CreateMessageRequestParams(messages=[], max_tokens=5)
    refused = asyncio.run(asks.sample(None, params))
    assert isinstance(refused, mcp_types.ErrorData) and "outside any call" in refused.message


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("sampling", True, "mcp_servers.s.sampling: Input should be 'allow' or 'deny'"),
        (
            "protocol",
            "2025-06-18",
            "mcp_servers.s.protocol: Input should be 'auto', 'legacy' or '2026-07-28'",
        ),
    ],
)
def test_bad_sampling_and_protocol_values_are_config_errors(key: str, value: Any, said: str) -> None:
    from tooldeck import parse_config
    from tooldeck.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_config({"mcp_servers": {"s": {"command": "x", key: value}}})
    assert said in str(caught.value)


def test_a_2026_server_announces_a_new_tool_on_its_listen_stream(tmp_path: Path) -> None:
    from .mcpkit import wait_for

    with deck_over(tmp_path, {"ask": asking("auto")}) as deck:
        assert "mcp__ask__grown" not in deck.registry.snapshot().names()
        assert deck.call_sync("mcp__ask__grow", {}).ok
        wait_for(lambda: "mcp__ask__grown" in deck.registry.snapshot().names(), what="new tool listed")
        assert "grown ran" in deck.call_sync("mcp__ask__grown", {}).content


def test_a_tool_list_stays_fresh_across_a_reconnection_while_its_ttl_lasts(tmp_path: Path) -> None:
    from .mcpkit import wait_for

    listings = tmp_path / "listings"
    server = asking("auto", env={"ASKING_LISTINGS": str(listings)}, inherit_env=["PATH", "HOME"])
    with deck_over(tmp_path, {"ask": server}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-ask")
        sup = source.supervisor
        assert listings.read_text().splitlines() == ["listed"]
        first = sup._conn
        assert not deck.call_sync("mcp__ask__crash", {}).ok  # the server dies; another one starts
        wait_for(lambda: sup.state == "ready" and sup._conn is not first, timeout=120, what="reconnected")
        assert deck.call_sync("mcp__ask__chatty", {}).ok
        # The new process was never asked for its tools: the first listing said a minute.
        assert listings.read_text().splitlines() == ["listed"]
