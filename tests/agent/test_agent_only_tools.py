"""Tools only an agent run can act on (`clarify`, `present_files`, `delegate_task`) are not
offered where there is none - `deck.call`, the real `tooldeck call`, `tooldeck serve` (official
MCP client) - and `explain` shows the gate; called anyway, they are an `unavailable` error, not
"the question was shown to the user". `todo`, `memory` and `session_search` work everywhere."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from cli.clirun import BIN, tooldeck_here
from support.agent_kit import make_agent
from support.mcp_text import text_of
from support.scripted_server import ScriptedServer, Turn
from tooldeck import Deck, load_config

AGENT_ONLY = {"clarify", "delegate_task", "present_files"}
EVERYWHERE = {"memory", "session_search", "todo"}
CONFIG = """\
home: home
sandbox: {workspace: ws}
platform_toolsets: {cli: [clarify, delegation, file, memory, session_search, todo]}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "report.md").write_text("# done\n", encoding="utf-8")
    (tmp_path / "tooldeck.yaml").write_text(CONFIG, encoding="utf-8")
    return tmp_path


def test_the_api_hides_them_outside_an_agent_run_and_says_why(project: Path) -> None:
    deck = Deck(load_config(project / "tooldeck.yaml"))
    fates = {f.name: f for f in deck.explain().fates}
    for name in AGENT_ONLY:
        assert (fates[name].status, fates[name].gate) == ("hidden", "agent_run"), name
        assert "only in an agent run" in (fates[name].reason or "")
    assert all(fates[name].status == "exposed" for name in EVERYWHERE)
    in_agent = {f.name: f.status for f in deck.explain(agent=True).fates}
    assert all(in_agent[name] == "exposed" for name in AGENT_ONLY | EVERYWHERE)
    asked = deck.call_sync("clarify", {"question": "Which one?"})
    assert asked.error is not None and asked.error.type == "unavailable"
    assert "only in an agent run" in asked.error.message and "shown to the user" not in asked.content
    assert asked.interrupt is None
    shown = deck.call_sync("present_files", {"paths": ["report.md"]})
    assert shown.error is not None and shown.error.type == "unavailable" and shown.update is None
    assert deck.call_sync("todo", {"action": "add", "items": ["x"]}).ok


def test_tooldeck_call_and_explain_say_so(project: Path) -> None:
    cfg = str(project / "tooldeck.yaml")
    asked = tooldeck_here(
        "call", "clarify", "--args", '{"question": "Which one?"}', "--json", "--config", cfg
    )
    assert asked.returncode == 1, asked.stderr
    out = json.loads(asked.stdout)
    assert out["ok"] is False and out["error"]["type"] == "unavailable"
    assert "shown to the user" not in out["content"]
    rows = json.loads(tooldeck_here("explain", *sorted(AGENT_ONLY), "--json", "--config", cfg).stdout)
    assert {(r["name"], r["status"], r["gate"]) for r in rows} == {
        (n, "hidden", "agent_run") for n in AGENT_ONLY
    }
    agent_rows = json.loads(
        tooldeck_here("explain", *sorted(AGENT_ONLY), "--agent", "--json", "--config", cfg).stdout
    )
    assert {r["status"] for r in agent_rows} == {"exposed"}
    listed = {
        t["function"]["name"] for t in json.loads(tooldeck_here("tools", "--json", "--config", cfg).stdout)
    }
    assert not listed & AGENT_ONLY and listed >= EVERYWHERE
    agent_listed = json.loads(tooldeck_here("tools", "--agent", "--json", "--config", cfg).stdout)
    assert {t["function"]["name"] for t in agent_listed} >= AGENT_ONLY


def test_serve_does_not_list_them_and_refuses_a_call(project: Path) -> None:
    params = StdioServerParameters(
        command=str(BIN), args=["serve", "--config", str(project / "tooldeck.yaml")], env=dict(os.environ)
    )

    async def session() -> tuple[set[str], str, bool]:
        async with Client(params, mode="legacy") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool("delegate_task", {"goal": "anything"})
            return names, text_of(result), bool(result.is_error)

    names, text, is_error = asyncio.run(session())
    assert not names & AGENT_ONLY and names >= EVERYWHERE
    assert is_error and json.loads(text)["error"]["type"] == "unavailable"


def test_an_agent_run_offers_them_and_clarify_still_asks(
    scripted_server: ScriptedServer, project: Path
) -> None:
    deck = Deck(load_config(project / "tooldeck.yaml"))
    scripted_server.add(Turn(calls=[("clarify", {"question": "Which one?"})]))
    agent, _ = make_agent(scripted_server, "openai", project / "home", deck=deck)

    async def main() -> str:
        try:
            return (await agent.run(agent.new_conversation(), "do it")).status
        finally:
            await agent.aclose()

    assert asyncio.run(main()) == "interrupted"
    assert set(scripted_server.requests[0].tool_names()) >= AGENT_ONLY
