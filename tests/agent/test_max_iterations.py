"""`deck.agent(max_iterations=...)` is checked as the CLI's --max-iterations is: at least one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tooldeck import Config, Deck, ScriptedModel, tool
from tooldeck.agent import call, reply


@tool(toolset="m")
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def deck(tmp_path: Path) -> Deck:
    return Deck(Config(platform_toolsets={"cli": ["m"]}, home=str(tmp_path)), tools=[add])


@pytest.mark.parametrize("bad", [0, -1])
def test_a_budget_below_one_is_refused_naming_the_parameter(tmp_path: Path, bad: int) -> None:
    with pytest.raises(ValueError, match=f"max_iterations must be >= 1, got {bad}"):
        deck(tmp_path).agent(ScriptedModel([reply("x")]), store=False, max_iterations=bad)


def test_a_non_integer_budget_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="max_iterations must be an int"):
        deck(tmp_path).agent(ScriptedModel([reply("x")]), store=False, max_iterations=True)


def test_a_budget_of_one_runs_one_iteration(tmp_path: Path) -> None:
    model = ScriptedModel([reply(calls=[call("add", {"a": 1, "b": 1})]), reply("summary")])
    agent = deck(tmp_path).agent(model, store=False, max_iterations=1)
    result = asyncio.run(agent.run(agent.new_conversation(), "go"))
    assert (result.status, result.iterations, result.text) == ("budget_exhausted", 1, "summary")
