"""What `tooldeck serve` declares about its tool list is what it does, on both transports and in
both protocol eras: it declares `tools.listChanged: true`, and a check that flips sends
`notifications/tools/list_changed` (handshake era: on the connection; 2026-07-28: on a listen
stream), and the tool that appeared can be called. The official SDK client reads both."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from serve.helpers import http_server, make_config, stdio_params
from support.mcp_text import text_of


@asynccontextmanager
async def over_http(url: str, mode: str, on_message: Any) -> Any:
    async with (
        httpx2.AsyncClient() as http,
        Client(
            streamable_http_client(url, http_client=http), mode=mode, message_handler=on_message
        ) as client,
    ):
        yield client


async def declared_and_done(connect: Any, flag: Path, mode: str) -> None:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    session: AbstractAsyncContextManager[Client] = connect(on_message)
    async with session as client:
        tools = client.server_capabilities.tools
        assert tools is not None and tools.list_changed is True
        assert "flagged" not in [t.name for t in (await client.list_tools()).tools]
        if mode == "legacy":
            flag.write_text("up")
            with anyio.fail_after(30):
                await changed.wait()
        else:
            async with client.listen(tools_list_changed=True) as events:
                flag.write_text("up")
                with anyio.fail_after(30):
                    event = await anext(aiter(events))
                assert type(event).__name__ == "ToolsListChanged"
        assert "flagged" in [t.name for t in (await client.list_tools()).tools]
        assert text_of(await client.call_tool("flagged", {})) == "flag is up"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_http_declares_list_changed_and_sends_it(tmp_path: Path, mode: str) -> None:
    config = make_config(tmp_path)
    with http_server(config, "--interval", "0.2") as url:
        connect = lambda on_message: over_http(url, mode, on_message)  # noqa: E731
        asyncio.run(declared_and_done(connect, tmp_path / "flag", mode))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stdio_declares_list_changed_and_sends_it(tmp_path: Path, mode: str) -> None:
    config = make_config(tmp_path)
    connect = lambda on_message: Client(stdio_params(config), mode=mode, message_handler=on_message)  # noqa: E731
    asyncio.run(declared_and_done(connect, tmp_path / "flag", mode))
