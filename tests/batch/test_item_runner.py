"""`ItemRunner`: one item through the real agent loop, the official SDK and a loopback model server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import TEST_TOOLS
from tooldeck import parse_config
from tooldeck._deck import Deck
from tooldeck.agent.models.base import ModelSettings, Provider
from tooldeck.batch.items import BatchItem
from tooldeck.batch.worker import ItemRunner, WorkerSpec, item_dirname
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn, tool_rounds

NOTE = [("write_file", {"path": "note.txt", "content": "hello"}), ("read_file", {"path": "note.txt"})]


def runner_for(
    server: ScriptedServer, tmp_path: Path, provider: Provider = "openai", **spec: Any
) -> ItemRunner:
    config = parse_config({"platform_toolsets": {"cli": ["file", "math", "danger", "todo"]}})
    deck = Deck(config, tools=TEST_TOOLS)
    settings = ModelSettings(
        provider=provider, model="scripted-model", base_url=server.openai_url, retry_initial_s=0.01
    )
    work = WorkerSpec(config=config, model=settings, workdir=str(tmp_path / "items"), **spec)
    return ItemRunner(work, worker="test", deck=deck)


def run(runner: ItemRunner, *items: BatchItem) -> list[Any]:
    async def go() -> list[Any]:
        try:
            return list(await asyncio.gather(*(runner.run(i) for i in items)))
        finally:
            await runner.aclose()

    return asyncio.run(go())


def test_an_item_runs_the_agent_loop_in_its_own_workspace(tmp_path: Path) -> None:
    with ScriptedServer(responder=tool_rounds(NOTE)) as server:
        runner = runner_for(server, tmp_path)
        [res] = run(runner, BatchItem("q/1", "say hi", system="You are terse.", metadata={"gold": "hi"}))
    assert res.status == "ok" and res.error is None
    assert res.text == "answer: say hi" and res.finish == "done" and res.iterations == 3
    assert [(c.name, c.error) for c in res.tool_calls] == [("write_file", None), ("read_file", None)]
    assert res.input_tokens > 0 and res.output_tokens > 0 and res.wall_s > 0
    assert res.metadata == {"gold": "hi"} and res.attempts == 1
    folder = tmp_path / "items" / item_dirname("q/1")
    assert res.workspace == str(folder / "workspace")
    assert (folder / "workspace" / "note.txt").read_text() == "hello"
    assert "/" not in item_dirname("q/1") and item_dirname("../..") != item_dirname("..")
    transcript = json.loads((folder / "transcript.json").read_text())
    assert transcript["session_id"] == res.session_id and transcript["system"] == "You are terse."
    assert [m["role"] for m in transcript["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert all(r.system == "You are terse." for r in server.requests)


def test_item_tools_narrow_the_loadout_and_unknown_ones_are_an_error(tmp_path: Path) -> None:
    with ScriptedServer(responder=tool_rounds([("add", {"a": 2, "b": 3})])) as server:
        runner = runner_for(server, tmp_path)
        ok, bad = run(
            runner,
            BatchItem("narrow", "add", tools=("add",)),
            BatchItem("bad", "x", tools=("add", "no_such_tool")),
        )
    assert ok.status == "ok" and [c.name for c in ok.tool_calls] == ["add"]
    assert {tuple(r.tool_names()) for r in server.requests} == {("add",)}
    assert bad.status == "error" and "no_such_tool" in (bad.error or "") and bad.iterations == 0
    assert len(server.requests) == 2  # the bad item never reached the model


def test_concurrent_items_do_not_see_each_others_files(tmp_path: Path) -> None:
    def respond(recorded: Recorded) -> Turn:
        prompt = recorded.text_of("user")[0]
        steps = [("write_file", {"path": "same.txt", "content": prompt}), ("read_file", {"path": "same.txt"})]
        done = recorded.tool_results()
        if len(done) < 2:
            return Turn(calls=[steps[len(done)]])
        return Turn(text=done[-1][1])  # answer with what read_file returned

    with ScriptedServer(responder=respond, latency_s=0.05) as server:
        runner = runner_for(server, tmp_path, concurrency=6)
        results = run(runner, *(BatchItem(i, f"item number {i}") for i in range(6)))
    for i, res in enumerate(results):
        assert res.status == "ok"
        assert f"item number {i}" in res.text
        assert all(f"item number {j}" not in res.text for j in range(6) if j != i)


def test_approval_fails_closed_and_the_item_still_finishes(tmp_path: Path) -> None:
    with ScriptedServer(responder=tool_rounds([("launch", {"target": "rocket"})])) as server:
        runner = runner_for(server, tmp_path)
        [res] = run(runner, BatchItem("a", "launch it"))
    assert res.status == "ok"
    assert [(c.name, c.error) for c in res.tool_calls] == [("launch", "denied")]
    [(_, content)] = server.requests[-1].tool_results()
    assert "non-interactive" in content


def test_timeout_model_error_and_budget_are_recorded_per_item(tmp_path: Path) -> None:
    def respond(recorded: Recorded) -> Turn:
        prompt = recorded.text_of("user")[0]
        if prompt == "slow":
            return Turn(text="late", delay_s=600)  # only the item's timeout can end it
        if prompt == "broken":
            return Turn(status=400, error="bad request for the test")
        return Turn(calls=[("add", {"a": 1, "b": 1})])  # never answers: the budget runs out

    # A timeout the other two items finish well within on a loaded machine.
    with ScriptedServer(responder=respond) as server:
        runner = runner_for(server, tmp_path, timeout_s=5, max_iterations=2)
        slow, broken, loop = run(runner, BatchItem(1, "slow"), BatchItem(2, "broken"), BatchItem(3, "loop"))
    assert slow.status == "timeout" and "5 s" in (slow.error or "") and slow.finish is None
    assert broken.status == "error" and "bad request for the test" in (broken.error or "")
    assert loop.status == "error" and loop.finish == "budget_exhausted" and "budget (2)" in (loop.error or "")
    assert [c.name for c in loop.tool_calls] == ["add", "add"]


@pytest.mark.parametrize("provider", ["anthropic", "responses"])
def test_other_providers_run_items_too(tmp_path: Path, provider: Provider) -> None:
    with ScriptedServer(responder=tool_rounds(NOTE)) as server:
        runner = runner_for(server, tmp_path, provider)
        [res] = run(runner, BatchItem("p", "hi"))
    assert res.status == "ok" and res.text == "answer: hi" and len(res.tool_calls) == 2
