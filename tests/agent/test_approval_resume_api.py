"""`Agent.resume(conversation, decisions)`: the Python side of approvals as interrupts, with the
official OpenAI SDK against the scripted server, and a fresh deck and agent resuming (as another
process would, from the session database and the signed pending calls)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tooldeck import Config, Deck, tool
from tooldeck.agent import ApprovalDecision
from tooldeck.errors import DecisionError
from tooldeck.testing.scripted_server import ScriptedServer, Turn


@tool(toolset="math")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def fresh_deck(tmp_path: Path, server: ScriptedServer, launched: list[str]) -> Deck:
    @tool(toolset="danger", requires_approval=True)
    def launch(target: str) -> str:
        """Launch something (needs approval)."""
        launched.append(target)
        return f"launched {target}"

    config = Config(
        platform_toolsets={"cli": ["math", "danger"]},
        approvals={"unattended": "interrupt"},
        model={"provider": "openai", "name": "m", "base_url": server.openai_url},
        home=str(tmp_path / "home"),
        sandbox={"workspace": str(tmp_path)},
    )
    return Deck(config, tools=[add, launch])


def test_pending_calls_are_decided_at_once_from_a_fresh_agent_and_an_always_grant_lasts(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    launched: list[str] = []
    scripted_server.add(
        Turn(
            calls=[("launch", {"target": "moon"}), ("add", {"a": 1, "b": 2}), ("launch", {"target": "venus"})]
        ),
        Turn(text="Moon launched; venus needs its target."),
        Turn(calls=[("launch", {"target": "moon"})]),
        Turn(text="Again."),
    )

    async def first_process() -> tuple[str, list[dict[str, object]]]:
        agent = fresh_deck(tmp_path, scripted_server, launched).agent()
        convo = agent.new_conversation()
        result = await agent.run(convo, "launch things")
        assert result.status == "interrupted" and result.question is None
        assert [m.role for m in convo.messages] == ["user", "assistant"]  # no result before all have one
        with pytest.raises(DecisionError, match="waiting for approval"):
            await agent.run(convo, "something else")
        await agent.aclose()
        return result.session_id, result.pending

    sid, pending = asyncio.run(first_process())
    assert [(p["tool"], p["arguments"]) for p in pending] == [
        ("launch", {"target": "moon"}),
        ("launch", {"target": "venus"}),
    ]
    assert launched == []
    moon, venus = (str(p["call_id"]) for p in pending)

    async def second_process() -> None:
        agent = fresh_deck(tmp_path, scripted_server, launched).agent()
        convo = agent.resume(sid)
        with pytest.raises(DecisionError, match="not waiting"):
            await agent.resume(convo, {"call_nope": ApprovalDecision.approve()})
        decisions = {
            moon: ApprovalDecision.approve("always"),
            venus: ApprovalDecision.edit({"destination": "mars"}),  # validated again: refused
        }
        done = await agent.resume(convo, decisions)
        assert done.status == "done" and done.text == "Moon launched; venus needs its target."
        with pytest.raises(DecisionError, match="not waiting for an approval"):
            await agent.resume(convo, {moon: ApprovalDecision.approve()})
        # The always grant covers the same call in a new turn: no interrupt this time.
        again = await agent.run(convo, "once more")
        assert again.status == "done" and again.text == "Again."
        await agent.aclose()

    asyncio.run(second_process())
    assert launched == ["moon", "moon"]
    results = scripted_server.requests[1].tool_results()
    assert [c for _, c in results][:2] == ["launched moon", "3"]
    assert "invalid_arguments" in results[2][1] and "target" in results[2][1]
    assert [i for i, _ in results] == [moon, scripted_server.requests[1].tool_call_ids()[1], venus]
