"""Model settings from config, flags and env; client details over loopback (base URLs, retries)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from support.agent_kit import loadout_of, settings_for
from tooldeck._core.config import ModelConfig
from tooldeck._core.execution.types import ToolCall
from tooldeck.agent.events import EventLog, RetryScheduled, TextDelta
from tooldeck.agent.messages import Message, assistant, user
from tooldeck.agent.models.anthropic import AnthropicModel, anthropic_base_url, anthropic_messages
from tooldeck.agent.models.base import ModelRequest, ModelSettings
from tooldeck.agent.models.factory import make_model, resolve_model_settings
from tooldeck.agent.models.openai_chat import OpenAIChatModel
from tooldeck.agent.models.scripted import ScriptedModel, call, reply
from tooldeck.errors import ConfigError, ModelError, ModelNotConfigured
from tooldeck.testing.scripted_server import ScriptedServer, Turn


def test_flags_beat_config_and_config_beats_env() -> None:
    cfg = ModelConfig(name="cfg-model", base_url="http://cfg:1/v1")
    env = {"OPENAI_BASE_URL": "http://env:1/v1", "OPENAI_API_KEY": "sk-env"}
    s = resolve_model_settings(cfg, env=env)
    assert (s.model, s.base_url, s.api_key, s.provider) == (
        "cfg-model",
        "http://cfg:1/v1",
        "sk-env",
        "openai",
    )
    s = resolve_model_settings(cfg, model="flag", base_url="http://flag:1/v1", provider="responses", env=env)
    assert (s.model, s.base_url, s.provider) == ("flag", "http://flag:1/v1", "responses")
    s = resolve_model_settings(ModelConfig(name="m"), env=env)
    assert s.base_url == "http://env:1/v1"


def test_anthropic_reads_its_own_env_vars_and_named_key_env() -> None:
    env = {"ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "ok", "MY_KEY": "mine"}
    s = resolve_model_settings(ModelConfig(provider="anthropic", name="claude"), env=env)
    assert (s.api_key, s.api_key_env, s.base_url) == ("ak", "ANTHROPIC_API_KEY", None)
    s = resolve_model_settings(ModelConfig(name="m", api_key_env="MY_KEY"), env=env)
    assert (s.api_key, s.api_key_env) == ("mine", "MY_KEY")


def test_nothing_configured_says_how_to_point_at_a_model() -> None:
    with pytest.raises(ModelNotConfigured, match="no model endpoint is configured") as info:
        resolve_model_settings(ModelConfig(), env={})
    assert "OpenAI-compatible" in str(info.value) and "Anthropic" in str(info.value)
    with pytest.raises(ModelNotConfigured, match="MISSING_KEY, which is not set"):
        resolve_model_settings(ModelConfig(name="m", api_key_env="MISSING_KEY"), env={})
    with pytest.raises(ModelNotConfigured, match="no model name: pass --model"):
        resolve_model_settings(ModelConfig(), base_url="http://127.0.0.1:9/v1", env={})
    with pytest.raises(ConfigError, match=r"model\.provider: unknown model provider 'gemini'"):
        resolve_model_settings(ModelConfig(name="m"), provider="gemini", env={"OPENAI_API_KEY": "k"})


def test_anthropic_base_url_takes_the_host_root_and_tolerates_v1() -> None:
    assert anthropic_base_url("http://h:1/v1") == "http://h:1"
    assert anthropic_base_url("http://h:1/v1/") == "http://h:1"
    assert anthropic_base_url("https://api.anthropic.com") == "https://api.anthropic.com"


@pytest.mark.parametrize("root", [True, False])
def test_anthropic_client_reaches_v1_messages_with_either_base_url(
    scripted_server: ScriptedServer, root: bool
) -> None:
    scripted_server.add(Turn(text="hi"))
    url = scripted_server.url if root else scripted_server.openai_url
    model = AnthropicModel(ModelSettings(provider="anthropic", model="claude", base_url=url, api_key="k"))

    async def main() -> str:
        try:
            return (await model.complete(ModelRequest(system=None, messages=[user("hello")]))).message.content
        finally:
            await model.aclose()

    assert asyncio.run(main()) == "hi"
    [req] = scripted_server.requests
    assert req.path == "/v1/messages"
    assert req.headers.get("x-api-key") == "k" or req.headers.get("authorization") == "Bearer k"


def test_anthropic_history_alternates_roles_and_keeps_results_with_their_calls() -> None:
    calls = (ToolCall("t1", "add", '{"a": 1}'), ToolCall("t2", "add", "not json"))
    history = [
        user("q"),
        assistant("thinking", calls),
        Message("tool", "1", tool_call_id="t1"),
        Message("tool", "bad", tool_call_id="t2", is_error=True),
        user("and then?"),
    ]
    out = anthropic_messages(tuple(history))
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    assert out[1]["content"][1] == {"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1}}
    assert out[1]["content"][2]["input"] == {}  # arguments the model garbled are sent as an empty object
    kinds = [b["type"] for b in out[2]["content"]]
    assert kinds == ["tool_result", "tool_result", "text"] and out[2]["content"][1]["is_error"] is True


def test_retries_give_up_after_max_retries(scripted_server: ScriptedServer) -> None:
    scripted_server.add(*[Turn(status=500, error="boom")] * 3)
    model = make_model(settings_for(scripted_server, "openai", max_retries=2))
    log = EventLog()

    async def main() -> None:
        try:
            await model.complete(ModelRequest(system=None, messages=[user("x")]), events=log)
        finally:
            await model.aclose()

    with pytest.raises(ModelError, match="gave up after 3 attempts") as info:
        asyncio.run(main())
    assert info.value.kind == "server" and len(scripted_server.requests) == 3
    assert "HTTP 500" in str(info.value) and "boom" in str(info.value)  # the status and the snippet
    assert [e.attempt for e in log.of(RetryScheduled)] == [1, 2]


def test_chat_requests_carry_tools_and_sampling_settings(scripted_server: ScriptedServer) -> None:
    scripted_server.add(Turn(text="ok"))
    settings = settings_for(scripted_server, "openai", max_tokens=77, temperature=0.2)
    model = OpenAIChatModel(settings)
    lo = loadout_of(["math"])

    async def main() -> None:
        try:
            await model.complete(ModelRequest(system="S", messages=[user("x")], loadout=lo))
        finally:
            await model.aclose()

    asyncio.run(main())
    body = scripted_server.requests[0].body
    assert body["max_tokens"] == 77 and body["temperature"] == 0.2 and body["model"] == "scripted-model"
    assert body["messages"][0] == {"role": "system", "content": "S"}
    assert [t["function"]["name"] for t in body["tools"]] == ["add", "explode"]
    assert body["tools"][0]["function"]["parameters"]["required"] == ["a", "b"]


def test_scripted_model_streams_its_text_and_records_requests() -> None:
    model = ScriptedModel([reply("hello there  world", calls=[call("add", {"a": 1})])], stream=True)
    log = EventLog()
    got = asyncio.run(model.complete(ModelRequest(system=None, messages=[user("x")]), events=log))
    assert "".join(e.text for e in log.of(TextDelta)) == "hello there  world"
    assert got.tool_calls[0].name == "add" and got.stop_reason == "tool_calls"
    assert len(model.requests) == 1


def test_home_dir_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tooldeck.agent.services import tooldeck_home

    monkeypatch.setenv("TOOLDECK_HOME", str(tmp_path))
    assert tooldeck_home() == tmp_path
    assert tooldeck_home("rel", base_dir="/etc/x") == Path("/etc/x/rel")
    monkeypatch.delenv("TOOLDECK_HOME")
    assert tooldeck_home() == Path.home() / ".tooldeck"
