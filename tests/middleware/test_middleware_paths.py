"""Every path a call is made on goes through the session's middleware chain, once per call:
the recording middleware sees the call with its rewritten arguments, and its short-circuit
answers without running the tool (real processes for the CLI, serve and batch paths)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import tooldeck_text
from tooldeck import Deck, ToolCall

from .conftest import contexts, seen

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))


def run(project: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return tooldeck_text(list(args), project, env, stdin, timeout=300)


def shouted(project: Path) -> list[object]:
    return [r["arguments"] for r in seen(project) if r["name"] == "shout"]


def same_place(project: Path, count: int) -> None:
    """Each of `count` shout calls saw the configured workspace and home in its context."""
    home = str(project.parent / "home")
    assert [(c["workspace"], c["home"]) for c in contexts(project)] == [(str(project), home)] * count


def test_the_python_api_paths(project: Path) -> None:
    with Deck.load(project / "tooldeck.yaml") as deck:
        assert deck.call_sync("shout", {"text": "a"}).content == "A!"
        assert asyncio.run(deck.call("shout", {"text": "b"})).content == "B!"
        batch = deck.call_batch_sync(
            [ToolCall("x1", "shout", {"text": "c"}), ToolCall("x2", "forbidden", {})]
        )
        assert [r.content for r in batch] == ["C!", "short-circuited"]
        with deck.session(session_id="mine") as session:
            assert session.call_sync("shout", '{"text": "d"}', call_id="own").content == "D!"
    assert shouted(project) == [{"text": t + "!"} for t in "abcd"]
    assert [(r["id"], r["session"]) for r in seen(project)][-1] == ("own", "mine")
    assert not (project / "RAN").exists()
    same_place(project, 4)


def test_tooldeck_call(project: Path) -> None:
    out = run(project, "call", "shout", "--args", '{"text": "hi"}')
    assert out.returncode == 0 and out.stdout.strip() == "HI!", out.stderr
    cut = run(project, "call", "forbidden", "--json")
    assert json.loads(cut.stdout)["content"] == "short-circuited"
    assert shouted(project) == [{"text": "hi!"}] and not (project / "RAN").exists()
    same_place(project, 1)


def test_execute_code_and_each_of_its_nested_calls(project: Path) -> None:
    code = "from tooldeck_tools import shout, forbidden\nprint(shout(text='n'), forbidden())\n"
    with Deck.load(project / "tooldeck.yaml") as deck:
        result = deck.call_sync("execute_code", {"code": code}, call_id="outer")
    assert "N! short-circuited" in result.content, result.content
    names = [(r["name"], str(r["id"])) for r in seen(project)]
    assert names[0] == ("execute_code", "outer")
    assert [n for n, i in names[1:]] == ["shout", "forbidden"] and all(
        i.startswith("outer.") for _, i in names[1:]
    )
    assert not (project / "RAN").exists()


@pytest.fixture
def scripted(project: Path) -> Iterator[str]:
    calls = [{"name": "shout", "arguments": {"text": "run"}}, {"name": "forbidden", "arguments": {}}]
    (project / "calls.json").write_text(json.dumps(calls))
    server = [
        sys.executable,
        "-m",
        "tooldeck.testing.scripted_server",
        "--calls",
        "calls.json",
        "--until-eof",
    ]
    with subprocess.Popen(
        server, cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        try:
            yield proc.stdout.readline().strip()
        finally:
            proc.kill()
            proc.wait(timeout=60)


def test_the_agent_run_chat_and_batch(project: Path, scripted: str) -> None:
    model = ["--model", "scripted", "--base-url", scripted]
    ran = run(project, "run", "go", *model)
    assert ran.returncode == 0 and ran.stdout.strip() == "answer: go", ran.stderr
    chat = run(project, "chat", *model, stdin="talk\n")
    assert chat.returncode == 0, chat.stderr
    (project / "in.jsonl").write_text('{"id": "a", "prompt": "first"}\n')
    batch = run(project, "batch", "in.jsonl", "--out", "out.jsonl", *model)
    assert batch.returncode == 0, batch.stderr
    [item] = [json.loads(line) for line in (project / "out.jsonl").read_text().splitlines()]
    assert item["status"] == "ok"
    # Each path: shout rewritten on its way, forbidden answered by the middleware.
    assert shouted(project) == [{"text": "run!"}] * 3
    assert [r["name"] for r in seen(project)] == ["shout", "forbidden"] * 3
    assert len({r["session"] for r in seen(project)}) == 3
    assert not (project / "RAN").exists() and not list(project.rglob("RAN"))
    # run and chat: the configured workspace and home; the batch item: its own, as documented.
    run_and_chat, [item_ctx] = contexts(project)[:2], contexts(project)[2:]
    assert [(c["workspace"], c["home"]) for c in run_and_chat] == [
        (str(project), str(project.parent / "home"))
    ] * 2
    assert item_ctx["workspace"] == item["workspace"] and item_ctx["home"] != str(project.parent / "home")


def test_serve_over_stdio(project: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from tests.support.mcp_text import text_of

    async def session() -> tuple[str, str]:
        params = StdioServerParameters(
            command=TOOLDECK, args=["serve", "--config", str(project / "tooldeck.yaml")], env=dict(os.environ)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            loud = await client.call_tool("shout", {"text": "mcp"})
            cut = await client.call_tool("forbidden", {})
            return text_of(loud), text_of(cut)

    assert asyncio.run(session()) == ("MCP!", "short-circuited")
    assert shouted(project) == [{"text": "mcp!"}]
    assert [str(r["session"]).startswith("serve") for r in seen(project)] == [True, True]
    assert not (project / "RAN").exists()
    same_place(project, 1)
