"""`tooldeck serve` over stdio, driven by the official `mcp` SDK client in both protocol eras.

"legacy" is the 2025 handshake (server-sent elicitation); "auto" negotiates 2026-07-28
(input-required round trips). list_changed on both transports: test_serve_list_changed.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from serve.helpers import make_config, stdio_params, tools_json_names
from support.mcp_text import text_of

MODES = ["legacy", "auto"]


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    error: dict[str, Any] = json.loads(text_of(result))["error"]
    return error


def text(result: types.CallToolResult) -> str:
    assert result.is_error is False, result
    return text_of(result)


@pytest.mark.parametrize("mode", MODES)
def test_lists_what_tools_json_shows_and_calls_through_the_executor(tmp_path: Path, mode: str) -> None:
    config = make_config(tmp_path)
    expected = tools_json_names(config)
    assert expected == ["dawdle", "explode", "guarded", "shout"]

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            listed = (await client.list_tools()).tools
            assert [t.name for t in listed] == expected
            by_name = {t.name: t for t in listed}
            shout = by_name["shout"].annotations
            assert shout is not None and shout.read_only_hint is True and shout.idempotent_hint is True
            assert shout.destructive_hint is None
            explode = by_name["explode"].annotations
            assert (
                explode is not None and explode.destructive_hint is True and explode.open_world_hint is False
            )
            assert by_name["shout"].input_schema["required"] == ["text"]

            # "2" is coerced as the schema says, exactly as for a model's call.
            assert text(await client.call_tool("shout", {"text": "hi", "times": "2"})) == "HI HI"
            bad = envelope(await client.call_tool("shout", {"times": "many"}))
            assert (
                bad["type"] == "invalid_arguments" and "text" in bad["message"] and "times" in bad["message"]
            )
            raised = envelope(await client.call_tool("explode", {"why": "testing"}))
            assert raised == {
                "type": "tool_error",
                "message": "tool 'explode' failed: RuntimeError: boom: testing",
                "tool": "explode",
                "retryable": False,
            }
            late = envelope(await client.call_tool("dawdle", {}))
            assert late["type"] == "timeout" and "0.5 s" in late["message"]
            unknown = envelope(await client.call_tool("shuot", {"text": "x"}))
            assert unknown["type"] == "unknown_tool" and "shout" in unknown["message"]
            hidden = envelope(await client.call_tool("flagged", {}))
            assert hidden["type"] in ("unknown_tool", "unavailable") and "flag" in hidden["message"].lower()

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["approve", "refuse", "decline"])
def test_approvals_ask_through_elicitation(tmp_path: Path, mode: str, answer: str) -> None:
    config = make_config(tmp_path)
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if answer == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"approve": answer == "approve"})

    async def session() -> types.CallToolResult:
        async with Client(stdio_params(config), mode=mode, elicitation_callback=elicit) as client:
            return await client.call_tool("guarded", {"note": "hello"})

    result = asyncio.run(session())
    assert len(asked) == 1 and "guarded" in asked[0] and '"note": "hello"' in asked[0]
    notes = tmp_path / "notes.txt"
    if answer == "approve":
        assert text(result) == "noted: hello"
        assert notes.read_text() == "hello\n"
    else:
        error = envelope(result)
        assert error["type"] == "denied" and "did not approve" in error["message"]
        assert not notes.exists()


@pytest.mark.parametrize("mode", MODES)
def test_without_elicitation_approval_fails_closed_with_the_reason(tmp_path: Path, mode: str) -> None:
    config = make_config(tmp_path)

    async def session() -> types.CallToolResult:
        async with Client(stdio_params(config), mode=mode) as client:
            return await client.call_tool("guarded", {"note": "hello"})

    error = envelope(asyncio.run(session()))
    assert error["type"] == "denied" and "elicitation" in error["message"]
    assert not (tmp_path / "notes.txt").exists()


def test_approvals_mode_allow_in_the_served_config_runs_without_asking(tmp_path: Path) -> None:
    config = make_config(tmp_path, "approvals: {mode: allow}\n")

    async def session() -> types.CallToolResult:
        async with Client(stdio_params(config)) as client:
            return await client.call_tool("guarded", {"note": "free"})

    assert text(asyncio.run(session())) == "noted: free"
