"""`model.reasoning` (and `--reasoning` / `--reasoning-budget`) mapped to each provider's own
request fields; a combination the provider cannot take is refused naming the key. Also the
scripted model's reasoning, shown by `run -v` and `sessions show`."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooldeck import Deck, ScriptedModel, parse_config
from tooldeck.agent.messages import user
from tooldeck.agent.models.base import ModelRequest, ModelSettings, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.models.reasoning import Reasoning
from tooldeck.agent.models.scripted import call, reply
from tooldeck.cli.main import CliError, dispatch
from tooldeck.errors import ConfigError, ModelError
from tooldeck.testing.scripted_server import ScriptedServer, Turn


def body_for(provider: Provider, model: str, reasoning: Reasoning, **kw: Any) -> dict[str, Any]:
    settings = ModelSettings(
        provider=provider, model=model, base_url="http://127.0.0.1:9/v1", reasoning=reasoning, **kw
    )
    client: Any = make_model(settings)
    body = client.request_body(ModelRequest(None, [user("hi")]))
    body.pop("messages", None), body.pop("input", None)
    return dict(body)


@pytest.mark.parametrize(
    ("provider", "model", "reasoning", "expected"),
    [
        ("openai", "gpt-5", Reasoning("max"), {"reasoning_effort": "xhigh"}),
        ("openai", "o4-mini", Reasoning("none"), {"reasoning_effort": "none"}),
        (
            "openai",
            "deepseek-v4-pro",
            Reasoning("max"),
            {"reasoning_effort": "max", "extra_body": {"thinking": {"type": "enabled"}}},
        ),
        (
            "openai",
            "deepseek-v4-flash",
            Reasoning("none"),
            {"extra_body": {"thinking": {"type": "disabled"}}},
        ),
        ("openai", "gemini-3-pro-preview", Reasoning("low"), {"reasoning_effort": "low"}),
        (
            "openai",
            "gemini-2.5-flash",
            Reasoning(budget_tokens=2048),
            {"extra_body": {"google": {"thinking_config": {"thinking_budget": 2048}}}},
        ),
        (
            "openai",
            "qwen3-235b-a22b",
            Reasoning("high", 4000),
            {"extra_body": {"thinking_budget": 4000, "enable_thinking": True}},
        ),
        (
            "openai",
            "moonshotai/kimi-k2.5",
            Reasoning("none"),
            {"extra_body": {"thinking": {"type": "disabled"}}},
        ),
        ("responses", "gpt-5", Reasoning("low"), {"reasoning": {"effort": "low", "summary": "auto"}}),
        ("responses", "gpt-5.1", Reasoning("none"), {"reasoning": {"effort": "none"}}),
        (
            "anthropic",
            "claude-sonnet-4-5",
            Reasoning(budget_tokens=3000),
            {"thinking": {"type": "enabled", "budget_tokens": 3000}, "max_tokens": 3000 + 4096},
        ),
        (
            "anthropic",
            "claude-sonnet-4-5",
            Reasoning("none"),
            {"thinking": {"type": "disabled"}, "max_tokens": 4096},
        ),
    ],
)
def test_each_provider_gets_reasoning_in_its_own_fields(
    provider: Provider, model: str, reasoning: Reasoning, expected: dict[str, Any]
) -> None:
    body = body_for(provider, model, reasoning)
    for key, value in expected.items():
        assert body[key] == value, key
    if provider == "responses" and reasoning.on:
        assert body["include"] == ["reasoning.encrypted_content"]
    if provider == "responses" and not reasoning.on:
        assert "include" not in body  # models without reasoning refuse encrypted content


@pytest.mark.parametrize(
    ("provider", "model", "reasoning", "kw", "key", "says"),
    [
        (
            "responses",
            "gpt-5",
            Reasoning(budget_tokens=5000),
            {},
            "model.reasoning.budget_tokens",
            "no token budget",
        ),
        (
            "openai",
            "gpt-5",
            Reasoning(budget_tokens=5000),
            {},
            "model.reasoning.budget_tokens",
            "no token budget",
        ),
        ("openai", "gemini-3-pro", Reasoning("max"), {}, "model.reasoning.effort", "none|low|medium|high"),
        ("openai", "gemini-3-pro", Reasoning("low", 900), {}, "model.reasoning.budget_tokens", "not both"),
        ("openai", "qwen3-32b", Reasoning("low"), {}, "model.reasoning.effort", "none|high"),
        (
            "anthropic",
            "claude-opus-4",
            Reasoning(budget_tokens=500),
            {},
            "model.reasoning.budget_tokens",
            "1024",
        ),
        (
            "anthropic",
            "claude-opus-4",
            Reasoning("high"),
            {"max_tokens": 2000},
            "model.reasoning.budget_tokens",
            "max_tokens",
        ),
        (
            "anthropic",
            "claude-opus-4",
            Reasoning("high"),
            {"temperature": 0.2},
            "model.temperature",
            "temperature",
        ),
    ],
)
def test_combinations_a_provider_cannot_take_are_refused_naming_the_key(
    provider: Provider, model: str, reasoning: Reasoning, kw: dict[str, Any], key: str, says: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        body_for(provider, model, reasoning, **kw)
    assert refused.value.path == key and says in str(refused.value)


def test_the_config_section_is_checked_and_reaches_the_agent(home: Path) -> None:
    with pytest.raises(ConfigError) as unknown:
        parse_config({"model": {"reasoning": {"effort": "extreme"}}})
    assert "model.reasoning.effort" in str(unknown.value)
    with pytest.raises(ConfigError) as typo:
        parse_config({"model": {"reasoning": {"budget": 10}}})
    assert "model.reasoning.budget" in str(typo.value)
    config = {
        "model": {
            "provider": "responses",
            "base_url": "http://127.0.0.1:9/v1",
            "reasoning": {"budget_tokens": 9},
        }
    }
    with pytest.raises(ConfigError) as refused:
        Deck(parse_config(config)).agent("gpt-5")
    assert refused.value.path == "model.reasoning.budget_tokens"


def _project(tmp_path: Path, server: ScriptedServer, model: dict[str, Any]) -> Path:
    config = tmp_path / "tooldeck.yaml"
    settings = {"name": "m", "base_url": server.openai_url, **model}
    config.write_text(
        yaml.safe_dump({"model": settings, "platform_toolsets": {"cli": ["todo"]}, "home": "h"})
    )
    return config


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder for a project whose home is its own (no TOOLDECK_HOME from outside)."""
    monkeypatch.delenv("TOOLDECK_HOME", raising=False)
    return tmp_path


def test_run_flags_turn_reasoning_on_and_refuse_what_the_provider_cannot_take(
    scripted_server: ScriptedServer, cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(cli, scripted_server, {"reasoning": {"effort": "low"}})
    scripted_server.add(Turn(text="ok", reasoning="pondering"), Turn(text="ok"))
    assert dispatch(["run", "hi", "--json", "--config", str(config)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert dispatch(["run", "hi", "--json", "--config", str(config), "--reasoning", "high"]) == 0
    assert [r.body["reasoning_effort"] for r in scripted_server.requests] == ["low", "high"]  # the flag wins
    assert (
        first["usage"]["reasoning_tokens"] > 0
        and "reasoning_tokens" not in json.loads(capsys.readouterr().out)["usage"]
    )
    with pytest.raises(CliError) as refused:
        dispatch(
            ["run", "hi", "--config", str(config), "--provider", "responses", "--reasoning-budget", "5000"]
        )
    assert refused.value.code == 2 and "model.reasoning.budget_tokens" in str(refused.value)
    assert len(scripted_server.requests) == 2  # refused before any request


def test_scripted_model_reasoning_is_kept_by_the_loop_and_a_dropped_one_refused(home: Path) -> None:
    deck = Deck(parse_config({"home": str(home), "platform_toolsets": {"cli": ["todo"]}}))
    model = ScriptedModel(
        [
            reply(
                calls=[call("todo", {"todos": [{"content": "x", "status": "pending"}]})],
                reasoning="plan first",
            ),
            reply("done", reasoning="wrap up"),
        ]
    )
    agent = deck.agent(model, store=False)

    async def turn() -> Any:
        convo = agent.new_conversation()
        result = await agent.run(convo, "go")
        return result, convo

    result, convo = asyncio.run(turn())
    assert result.text == "done" and result.usage.reasoning_tokens > 0
    assert [m.reasoning for m in convo.messages if m.role == "assistant"] == ["plan first", "wrap up"]
    sent = model.requests[1].messages[1]
    assert sent.provider_data is not None and sent.provider_data.payload["reasoning"] == "plan first"
    # The same history with the reasoning dropped is refused, as a reasoning provider would.
    model.extend([reply("again")])
    stripped = [convo.messages[0], replace(convo.messages[1], provider_data=None), *convo.messages[2:3]]
    with pytest.raises(ModelError) as refused:
        asyncio.run(model.complete(ModelRequest(None, stripped)))
    assert refused.value.status == 400 and "must be passed back" in str(refused.value)


def test_run_verbose_and_sessions_show_print_the_reasoning(
    scripted_server: ScriptedServer, cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(cli, scripted_server, {})
    scripted_server.add(Turn(text="forty-two", reasoning="six times seven"))
    assert dispatch(["run", "hi", "-v", "--config", str(config)]) == 0
    captured = capsys.readouterr()
    assert "six times seven" in captured.err and captured.out.strip() == "forty-two"
    session = (
        [line for line in captured.err.splitlines() if "session" in line][-1].split("session ")[1].split()[0]
    )
    assert dispatch(["sessions", "show", session.strip(".,:;"), "--config", str(config)]) == 0
    assert "(reasoning): six times seven" in capsys.readouterr().out


def test_resuming_on_another_provider_leaves_the_thinking_out_with_a_note(
    scripted_server: ScriptedServer, cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(cli, scripted_server, {})
    scripted_server.add(
        Turn(calls=[("todo", {"todos": [{"content": "x", "status": "pending"}]})], reasoning="signed plan"),
        Turn(text="planned", reasoning="signed answer"),
        Turn(text="moved on"),
    )
    assert dispatch(["run", "plan", "--json", "--config", str(config), "--provider", "anthropic"]) == 0
    session = json.loads(capsys.readouterr().out)["session_id"]
    argv = ["run", "next", "-v", "--config", str(config), "--provider", "openai", "--resume", session]
    assert dispatch(argv) == 0
    err = capsys.readouterr().err
    assert "note: reasoning from anthropic:m is not sent to chat:m, which would reject it" in err
    sent = scripted_server.requests[-1].body["messages"]
    assert "signed" not in json.dumps(sent)  # neither the thinking nor its signature
    assert [m["role"] for m in sent].count("assistant") == 2  # the replies themselves stay
