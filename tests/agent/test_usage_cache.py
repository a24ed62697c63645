"""The bill: cache reads and writes as each provider reports them, through the official SDKs,
under one naming, per request (`ModelReplied`), summed over the turn (`TurnFinished`, the
result, `run --json`), kept per message for `sessions show` and the inspector.

The scripted server simulates each provider's prompt cache (`tooldeck.testing.scripted_cache`);
each test replays the recorded requests through a fresh simulation to know what the server
reported, so the assertions hold the client to the provider's fields, not to fixed numbers."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import PROVIDERS, deck_with, settings_for
from support.cli import run_tooldeck
from tooldeck.agent.events import EventLog, ModelReplied, TurnFinished
from tooldeck.agent.messages import Message, Usage
from tooldeck.agent.models.base import Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.sessions import SessionStore
from tooldeck.testing.scripted_cache import PromptCache
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

CASES = [(p, s) for p in PROVIDERS for s in (False, True)]
IDS = [f"{p}-{'stream' if s else 'plain'}" for p, s in CASES]
TOOLDECK = str(Path(sys.executable).parent / "tooldeck")


def reported(requests: list[Recorded]) -> list[Usage]:
    """What the server billed for each request, as tooldeck names it (a fresh cache, replayed)."""
    cache = PromptCache(min_tokens=1)
    out = []
    for r in requests:
        total = len(json.dumps(r.body)) // 4
        if r.kind == "anthropic":
            bill = cache.anthropic(r.body, total)
            whole = bill.input_tokens + bill.cache_read_input_tokens + bill.cache_creation_input_tokens
            out.append(Usage(whole, 0, 0, bill.cache_read_input_tokens, bill.cache_creation_input_tokens))
        else:
            read, written = cache.openai(r.kind, r.body)
            out.append(Usage(max(total, read + written), 0, 0, read, written))
    return out


def run_turn(server: ScriptedServer, provider: Provider, stream: bool, home: Path) -> tuple[Any, EventLog]:
    log = EventLog()
    deck = deck_with(["math"], home=str(home), sandbox={"workspace": str(home)})
    settings = settings_for(server, provider, stream=stream)
    model = make_model(settings)  # Anthropic's requests carry their own cache breakpoints
    agent = deck.agent(model, store=SessionStore(home / "state.db"), events=log)

    async def main() -> Any:
        try:
            return await agent.run(agent.new_conversation(), "add 2 and 3")
        finally:
            await agent.aclose()

    return asyncio.run(main()), log


def inputs(usage: Usage) -> tuple[int, int, int]:
    return usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens


@pytest.mark.parametrize(("provider", "stream"), CASES, ids=IDS)
def test_cache_reads_and_writes_are_parsed_per_request_and_summed_over_the_turn(
    provider: Provider, stream: bool, home: Path
) -> None:
    with ScriptedServer([Turn(calls=[("add", {"a": 2, "b": 3})]), Turn("5")], cache_min_tokens=1) as server:
        result, log = run_turn(server, provider, stream, home)
        requests = list(server.requests)
    assert result.text == "5"
    replies = [e.usage for e in log.of(ModelReplied)]
    expected = reported(requests)
    assert [inputs(u) for u in replies] == [inputs(u) for u in expected]
    first, second = replies
    # The first request found nothing cached and wrote its prompt; the second read that prefix.
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > 0
    assert 0 < second.cache_read_input_tokens < second.input_tokens
    for usage in replies:
        assert usage.output_tokens > 0
        assert usage.cache_read_input_tokens + usage.cache_creation_input_tokens <= usage.input_tokens
    [finished] = log.of(TurnFinished)
    assert result.usage == finished.usage == first + second
    stored = SessionStore(home / "state.db").load(result.session_id).messages
    assert [m.usage for m in stored if m.role == "assistant"] == replies


def test_anthropic_input_tokens_count_the_cached_part_it_leaves_out() -> None:
    """Anthropic's `input_tokens` is only the uncached rest: tooldeck's is the whole prompt."""
    import anthropic
    from anthropic.types import MessageParam, TextBlockParam

    server = ScriptedServer(cache_min_tokens=1).start()
    try:
        client = anthropic.Anthropic(base_url=server.url, api_key="k")
        server.add(Turn("a"), Turn("b"))
        system: list[TextBlockParam] = [
            {
                "type": "text",
                "text": "a long and stable system prompt " * 20,
                "cache_control": {"type": "ephemeral"},
            }
        ]
        messages: list[MessageParam] = [{"role": "user", "content": "hi"}]
        written = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        read = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
    finally:
        server.stop()
    assert written.usage.cache_creation_input_tokens and not written.usage.cache_read_input_tokens
    assert read.usage.cache_read_input_tokens == written.usage.cache_creation_input_tokens
    assert not read.usage.cache_creation_input_tokens
    # The prompt is the same size both times, however Anthropic splits it.
    from tooldeck.agent.models.anthropic import anthropic_usage

    counts = [
        {k: v for k, v in u.model_dump().items() if isinstance(v, int)} for u in (written.usage, read.usage)
    ]
    ours = [anthropic_usage(c) for c in counts]
    assert ours[0].input_tokens == ours[1].input_tokens > read.usage.input_tokens


def test_anthropic_without_a_breakpoint_caches_nothing() -> None:
    cache = PromptCache(min_tokens=1)
    body = {"system": "s" * 400, "messages": [{"role": "user", "content": "hi"}]}
    assert cache.anthropic(body, 200) == (200, 0, 0)
    assert cache.anthropic(body, 200) == (200, 0, 0)
    marked = {**body, "cache_control": {"type": "ephemeral"}}
    assert cache.anthropic(marked, 200).cache_creation_input_tokens > 0
    assert cache.anthropic(marked, 200).cache_read_input_tokens > 0


def test_a_prefix_shorter_than_the_minimum_is_not_cached() -> None:
    cache = PromptCache(min_tokens=1024)
    body = {"messages": [{"role": "user", "content": "short"}]}
    assert cache.openai("chat", body) == (0, 0)
    assert cache.openai("chat", body) == (0, 0)
    long = {"messages": [{"role": "system", "content": "x" * 8000}, {"role": "user", "content": "q"}]}
    assert cache.openai("chat", long).cache_write_tokens > 0
    changed = {"messages": [long["messages"][0], {"role": "user", "content": "another"}]}
    read, _ = cache.openai("chat", changed)
    assert 2000 <= read < 2100  # the system message's tokens, not the changed question's


def test_usage_round_trips_through_a_stored_message() -> None:
    usage = Usage(100, 7, 2, 60, 30)
    message = Message(role="assistant", content="x", usage=usage)
    assert Message.from_dict(json.loads(json.dumps(message.to_dict()))).usage == usage
    assert Message.from_dict({"role": "assistant", "content": "x"}).usage is None
    assert usage.to_dict() == {
        "input_tokens": 100,
        "output_tokens": 7,
        "cache_read_input_tokens": 60,
        "cache_creation_input_tokens": 30,
        "reasoning_tokens": 2,
    }


def _tooldeck(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_tooldeck(project, *args, home=project / "home", timeout=120)


def test_run_json_and_sessions_show_carry_the_cache_bill(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "tooldeck.yaml").write_text("platform_toolsets: {cli: [todo]}\n")
    with ScriptedServer(cache_min_tokens=1) as server:
        server.add(
            Turn(calls=[("todo", {"todos": [{"id": "1", "content": "x", "status": "pending"}]})]), Turn("ok")
        )
        base = ["--provider", "responses", "--model", "m", "--base-url", server.openai_url, "--json"]
        run = _tooldeck(tmp_path, "run", "plan it", *base)
        assert run.returncode == 0, run.stderr
        turn = json.loads(run.stdout)
        server.add(Turn("again"))
        again = _tooldeck(tmp_path, "run", "--resume", turn["session_id"], "more", *base)
        assert again.returncode == 0, again.stderr
    usage = turn["usage"]
    assert set(usage) >= {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }
    assert usage["cache_read_input_tokens"] > 0 and usage["cache_creation_input_tokens"] > 0
    second = json.loads(again.stdout)["usage"]

    shown = _tooldeck(tmp_path, "sessions", "show", turn["session_id"], "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert [t["usage"] for t in data["turns"]] == [usage, second]
    total = {k: usage[k] + second[k] for k in usage if k in second}
    assert {k: data["usage"][k] for k in total} == total
    text = _tooldeck(tmp_path, "sessions", "show", turn["session_id"])
    assert f"{usage['cache_read_input_tokens']} cache read" in text.stdout
    assert f"tokens: {total['input_tokens']} input" in text.stdout


def test_the_cache_forgets_the_least_recently_used_prefix_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooldeck.testing import scripted_cache

    monkeypatch.setattr(scripted_cache, "MAX_ENTRIES", 2)
    cache = PromptCache(min_tokens=1)

    def ask(word: str) -> int:
        return cache.openai("chat", {"messages": [{"role": "user", "content": word * 40}]}).cached_tokens

    assert ask("a") == 0 and ask("b") == 0
    assert ask("a") > 0  # a used again: b is now the oldest
    assert ask("c") == 0  # c pushes b out
    assert ask("a") > 0 and ask("b") == 0


def test_a_batch_item_result_carries_the_cache_bill(tmp_path: Path) -> None:
    from tooldeck.agent.models.base import ModelSettings
    from tooldeck.batch.items import BatchItem
    from tooldeck.batch.worker import ItemRunner, WorkerSpec
    from tooldeck.testing.scripted_server import tool_rounds

    config = deck_with(["math"]).config
    with ScriptedServer(responder=tool_rounds([("add", {"a": 1, "b": 2})]), cache_min_tokens=1) as server:
        settings = ModelSettings(provider="openai", model="m", base_url=server.openai_url)
        spec = WorkerSpec(config=config, model=settings, workdir=str(tmp_path / "items"))
        runner = ItemRunner(spec, worker="test", deck=deck_with(["math"]))

        async def go() -> Any:
            try:
                return await runner.run(BatchItem("q1", "add"))
            finally:
                await runner.aclose()

        result = asyncio.run(go())
        expected = sum(reported(list(server.requests)), Usage())
    usage = result.to_json()["usage"]
    assert usage["cache_read_input_tokens"] == expected.cache_read_input_tokens > 0
    assert usage["cache_creation_input_tokens"] == expected.cache_creation_input_tokens > 0
    assert usage["input_tokens"] == expected.input_tokens


def test_run_verbose_ends_with_what_the_turn_cost(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "tooldeck.yaml").write_text("platform_toolsets: {cli: [todo]}\n")
    with ScriptedServer(cache_min_tokens=1) as server:
        server.add(
            Turn(calls=[("todo", {"todos": [{"id": "1", "content": "x", "status": "pending"}]})]), Turn("ok")
        )
        run = _tooldeck(tmp_path, "run", "plan it", "-v", "--model", "m", "--base-url", server.openai_url)
        [total] = [sum(reported(list(server.requests)), Usage())]
    assert run.returncode == 0, run.stderr
    assert (
        f"tokens: {total.input_tokens} input ({total.cache_read_input_tokens} cache read, "
        f"{total.cache_creation_input_tokens} cache write)"
    ) in " ".join(run.stderr.split())
