"""An ACP agent behind `tooldeck serve`: its permission requests reach the MCP client's user."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters

AGENT = Path(__file__).resolve().parent / "echo_agent.py"
BIN = Path(sys.executable).parent / "tooldeck"


@pytest.mark.parametrize(("mode", "written"), [("legacy", True), ("auto", False)])
def test_permission_requests_ask_the_mcp_client(tmp_path: Path, mode: str, written: bool) -> None:
    (tmp_path / "ws").mkdir()
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        "platform_toolsets: {cli: [acp]}\nsandbox: {workspace: ws}\nhome: home\n"
        f"acp_agents:\n  echo:\n    command: {sys.executable}\n    args: [{AGENT}]\n"
    )
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    async def session() -> str:
        params = StdioServerParameters(command=str(BIN), args=["serve", "--config", str(config)])
        async with Client(params, mode=mode, elicitation_callback=elicit) as client:
            result = await client.call_tool("echo", {"prompt": "write x.txt"})
            [block] = result.content
            assert isinstance(block, types.TextContent) and result.is_error is False
            return block.text

    text = asyncio.run(session())
    if written:
        # The handshake era can ask mid-call: the user approved, the agent wrote.
        assert "wrote x.txt" in text and (tmp_path / "ws" / "x.txt").exists()
        assert len(asked) == 1 and "Write x.txt" in asked[0]
    else:
        # The 2026-07-28 era has no server requests mid-call: the agent's question gets no.
        assert "not allowed to write x.txt" in text and not (tmp_path / "ws" / "x.txt").exists()
        assert asked == []
