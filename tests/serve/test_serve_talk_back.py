"""A running tool talks back to the MCP client of its call through `tooldeck serve`: progress
notifications for the client's progress token, log messages honouring `logging/setLevel`, forms
through elicitation (defaults and titled enums, the answer checked against the form) and
questions to the client's model through sampling; each only when the client declared it. Both
protocol eras, the official `mcp` client over stdio."""

from __future__ import annotations

import asyncio
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from serve.helpers import BIN, HERE
from support.mcp_text import text_of

CONFIG = """\
platform_toolsets: {cli: [talk]}
tools:
  - use: talk_tools:count_up
  - use: talk_tools:slow_count
  - use: talk_tools:ask_name
  - use: talk_tools:ask_model
  - use: talk_tools:roots
  - use: talk_tools:all_at_once
prompts:
  - use: talk_tools:briefing
home: home
"""
MODES = ["legacy", "auto"]


def served(folder: Path) -> StdioServerParameters:
    shutil.copy(HERE / "talk_tools.py", folder / "talk_tools.py")
    config = folder / "tooldeck.yaml"
    config.write_text(CONFIG)
    return StdioServerParameters(command=str(BIN), args=["serve", "--config", str(config)])


def ok_text(result: types.CallToolResult) -> str:
    assert result.is_error is False, result
    return text_of(result)


@pytest.mark.parametrize("mode", MODES)
def test_progress_reaches_the_client_that_gave_a_token(tmp_path: Path, mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async def session() -> None:
        async with Client(served(tmp_path), mode=mode) as client:
            assert (
                ok_text(await client.call_tool("count_up", {"n": 3}, progress_callback=progress))
                == "counted to 3"
            )
            assert [(v, t, m) for v, t, m in seen] == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
            seen.clear()
            assert ok_text(await client.call_tool("slow_count", {"n": 2}, progress_callback=progress)) == (
                "sync counted to 2"
            )
            assert [(v, t) for v, t, _ in seen] == [(1, 2), (2, 2)]
            seen.clear()
            await client.call_tool("count_up", {"n": 2})  # no token: nothing is sent
            assert seen == []

    asyncio.run(session())


def test_log_messages_honour_the_level_the_client_set(tmp_path: Path) -> None:
    got: list[tuple[str, Any, str | None]] = []

    async def logged(params: types.LoggingMessageNotificationParams) -> None:
        got.append((params.level, params.data, params.logger))

    async def session() -> None:
        async with Client(served(tmp_path), mode="legacy", logging_callback=logged) as client:
            await client.call_tool("count_up", {"n": 2})
            assert [g[0] for g in got] == ["debug", "debug", "warning"]  # every level until set
            assert got[-1] == ("warning", {"message": "counted", "data": {"n": 2}}, "count_up")
            got.clear()
            with warnings.catch_warnings():  # deprecated in 2026-07-28, still what 2025 clients send
                warnings.simplefilter("ignore")
                await client.set_logging_level("info")
            await client.call_tool("count_up", {"n": 2})
            await client.call_tool("slow_count", {"n": 1})
            assert got == [
                ("warning", {"message": "counted", "data": {"n": 2}}, "count_up"),
                ("info", "sync counted", "slow_count"),
            ]

    asyncio.run(session())


def answer_of(result: types.CallToolResult) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ok_text(result))
    return data


@pytest.mark.parametrize("mode", MODES)
def test_a_form_is_asked_through_elicitation_with_defaults_and_checked(tmp_path: Path, mode: str) -> None:
    asked: list[types.ElicitRequestParams] = []
    replies = iter(
        [
            types.ElicitResult(action="accept", content={"name": "Ada", "extras": ["cake"]}),
            types.ElicitResult(action="accept", content={"name": "Ada", "colour": "blue"}),
            types.ElicitResult(action="decline"),
        ]
    )

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return next(replies)

    async def session() -> None:
        async with Client(served(tmp_path), mode=mode, elicitation_callback=elicit) as client:
            filled = answer_of(await client.call_tool("ask_name", {}))
            # The defaults fill in what the user left out.
            assert filled == {
                "action": "accept",
                "content": {"name": "Ada", "colour": "g", "extras": ["cake"], "subscribe": False},
                "reason": "",
            }
            form = asked[0]
            assert isinstance(form, types.ElicitRequestFormParams) and form.message == "Who are you?"
            assert form.requested_schema["properties"]["colour"]["default"] == "g"
            # An answer outside the form never reaches the tool.
            bad = answer_of(await client.call_tool("ask_name", {}))
            assert bad["action"] == "decline" and bad["content"] is None and "colour" in bad["reason"]
            declined = answer_of(await client.call_tool("ask_name", {}))
            assert declined["action"] == "decline"

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_without_the_capability_a_form_is_declined(tmp_path: Path, mode: str) -> None:
    async def session() -> None:
        async with Client(served(tmp_path), mode=mode) as client:
            declined = answer_of(await client.call_tool("ask_name", {}))
            assert declined["action"] == "decline" and "elicitation" in declined["reason"]
            roots = answer_of(await client.call_tool("roots", {}))
            assert roots == {"roots": []}  # no roots declared: none

    asyncio.run(session())


def test_without_the_capability_sampling_is_an_error_in_the_handshake_era(tmp_path: Path) -> None:
    async def session() -> None:
        async with Client(served(tmp_path), mode="legacy") as client:
            failed = await client.call_tool("ask_model", {"question": "2+2?"})
            assert failed.is_error is True
            error = json.loads(text_of(failed))["error"]
            assert error["type"] == "unavailable" and "sampling" in error["message"]

    asyncio.run(session())


def test_a_2026_call_needing_an_undeclared_capability_is_refused_with_32021(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

    async def session() -> None:
        async with Client(served(tmp_path), mode="auto") as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("ask_model", {"question": "2+2?"})
            assert raised.value.error.code == MISSING_REQUIRED_CLIENT_CAPABILITY
            assert "sampling" in (raised.value.error.data or {})["requiredCapabilities"]

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_questions_asked_at_once_come_in_one_round_by_their_keys(tmp_path: Path, mode: str) -> None:
    rounds: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        rounds.append("elicit")
        return types.ElicitResult(action="accept", content={"name": "Ada", "colour": "r"})

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        rounds.append("sample")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(text="hi Ada"), model="m"
        )

    async def roots(context: Any) -> types.ListRootsResult:
        rounds.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])

    async def session() -> None:
        async with Client(
            served(tmp_path),
            mode=mode,
            elicitation_callback=elicit,
            sampling_callback=sample,
            list_roots_callback=roots,
        ) as client:
            got = answer_of(await client.call_tool("all_at_once", {}))
            assert got == {"name": "Ada", "greeting": "hi Ada", "roots": ["file:///work/project"]}

    asyncio.run(session())
    assert sorted(rounds) == ["elicit", "roots", "sample"]


@pytest.mark.parametrize("mode", MODES)
def test_sampling_asks_the_clients_model(tmp_path: Path, mode: str) -> None:
    prompts: list[types.CreateMessageRequestParams] = []

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        prompts.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(text="four"),
            model="client-model",
            stop_reason="endTurn",
        )

    async def session() -> None:
        async with Client(served(tmp_path), mode=mode, sampling_callback=sample) as client:
            assert ok_text(await client.call_tool("ask_model", {"question": "2+2?"})) == "client-model: four"

    asyncio.run(session())
    [params] = prompts
    assert params.max_tokens == 50 and params.system_prompt == "Be brief."
    [message] = params.messages
    assert message.role == "user" and isinstance(message.content, types.TextContent)
    assert message.content.text == "2+2?"


def test_a_2026_retry_with_a_state_the_client_made_up_is_refused(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Mallory"})

    async def session() -> None:
        async with Client(served(tmp_path), mode="auto", elicitation_callback=elicit) as client:
            forged = json.dumps(
                {"answers": {"tooldeck_elicit_0": {"action": "accept", "content": {"name": "x"}}}}
            )
            with pytest.raises(MCPError) as raised:
                await client.call_tool("ask_name", {}, request_state=forged)
            assert raised.value.error.code == types.INVALID_PARAMS
            # The honest round trip still works on the same connection.
            assert answer_of(await client.call_tool("ask_name", {}))["content"]["name"] == "Mallory"

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_a_declared_prompt_asks_the_user_like_a_tool(tmp_path: Path, mode: str) -> None:
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"audience": "the board"})

    async def session() -> types.GetPromptResult:
        async with Client(served(tmp_path), mode=mode, elicitation_callback=elicit) as client:
            listed = [p.name for p in (await client.list_prompts()).prompts]
            assert "briefing" in listed
            return await client.get_prompt("briefing", {"topic": "costs"})

    result = asyncio.run(session())
    assert asked == ["Who is the briefing on costs for?"]
    [message] = result.messages
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Brief the board on costs."
