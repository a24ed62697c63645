"""A `DeckServer` in process: a source that announces new tools reaches connected clients."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from support.mcp_text import text_of
from tooldeck import Config, Deck, Tool
from tooldeck._core.sources.base import Source, SourceListing
from tooldeck.serve import DeckServer


def make_tool(name: str) -> Tool:
    return Tool(
        name=name,
        description=f"Say {name}.",
        parameters={"type": "object", "properties": {}},
        handler=lambda args, n=name: f"hello from {n}",
        toolset="live",
        read_only=True,
    )


class LiveSource(Source):
    """A source whose tools change at runtime, as an MCP server behind the deck would."""

    def __init__(self) -> None:
        super().__init__("live", "mcp")
        self.names = ["first"]
        self.subscriptions = 0

    def subscribe(self, listener: Any) -> Any:
        self.subscriptions += 1
        return super().subscribe(listener)

    def load(self) -> SourceListing:
        return SourceListing(tuple(make_tool(n) for n in self.names))

    def grow(self, name: str) -> None:
        self.names.append(name)
        self.refresh()  # forget the listing and announce changed("tools")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_source_announcing_a_change_sends_list_changed(tmp_path: Path, mode: str) -> None:
    source = LiveSource()
    config = Config(platform_toolsets={"cli": ["live"]}, home=str(tmp_path))
    deck = Deck(config, sources=[source], builtins=False)
    # A long interval: only the source's announcement can wake the watcher in time.
    server = DeckServer(deck, interval_s=3600)

    async def session() -> list[str]:
        before = source.subscriptions
        watcher = asyncio.create_task(server.watch())
        changed = anyio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        try:
            async with Client(server.server, mode=mode, message_handler=on_message) as client:
                assert [t.name for t in (await client.list_tools()).tools] == ["first"]
                with anyio.fail_after(30):  # until the watcher has subscribed to the sources
                    while source.subscriptions == before:
                        await asyncio.sleep(0.01)
                if mode == "legacy":
                    source.grow("second")
                    with anyio.fail_after(10):
                        await changed.wait()
                else:
                    async with client.listen(tools_list_changed=True) as events:
                        source.grow("second")
                        with anyio.fail_after(10):
                            await anext(aiter(events))
                names = [t.name for t in (await client.list_tools()).tools]
                result = await client.call_tool("second", {})
                # Output of an MCP source's tool is framed as untrusted, as it is for a model.
                shown = text_of(result)
                assert "\nhello from second\n" in shown and shown.startswith(
                    '<untrusted_content tool="second">'
                )
                return names
        finally:
            watcher.cancel()

    assert asyncio.run(session()) == ["first", "second"]
    assert server.notifications_sent == 1


def test_nothing_changed_sends_nothing(tmp_path: Path) -> None:
    deck = Deck(Config(platform_toolsets={"cli": ["live"]}, home=str(tmp_path)), sources=[LiveSource()])
    server = DeckServer(deck, interval_s=0.05)

    async def run() -> bool:
        watcher = asyncio.create_task(server.watch())
        await asyncio.sleep(0.4)
        refreshed = await server.refresh()
        watcher.cancel()
        return refreshed

    assert asyncio.run(run()) is False
    assert server.notifications_sent == 0
