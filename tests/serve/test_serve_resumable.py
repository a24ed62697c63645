"""`tooldeck serve --transport http` streams are resumable: a POST's SSE response starts with a
priming event and a `retry` interval, and the events of a stream are kept (bounded) for a client
that reconnects with `Last-Event-ID`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from serve.helpers import http_server, make_config
from tooldeck.serve.event_store import RETRY_MS, event_store

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def events(body: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            fields[name] = fields.get(name, "") + value.lstrip()
        if fields:
            out.append(fields)
    return out


def test_a_post_stream_is_primed_with_an_id_and_a_retry_interval(tmp_path: Path) -> None:
    with http_server(make_config(tmp_path)) as url:
        init = httpx.post(url, json=INIT, headers=HEADERS, timeout=10)
        assert init.status_code == 200
        session = init.headers["mcp-session-id"]
        headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        httpx.post(
            url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers, timeout=10
        )
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "shout", "arguments": {"text": "x"}},
        }
        reply = httpx.post(url, json=call, headers=headers, timeout=30)
    got = events(reply.text)
    assert got[0].get("retry") == str(RETRY_MS) and got[0].get("id")
    [answer] = [json.loads(e["data"]) for e in got if e.get("data")]
    assert answer["id"] == 2 and answer["result"]["content"][0]["text"] == "X"
    assert all(e.get("id") for e in got)  # every event can be resumed after


def test_the_store_replays_a_streams_later_events_and_forgets_the_oldest() -> None:
    async def run() -> tuple[list[Any], list[Any], Any]:
        store = event_store(max_events=3)
        a1 = await store.store_event("a", None)  # priming
        await store.store_event("a", {"n": 1})
        await store.store_event("b", {"n": 9})
        await store.store_event("a", {"n": 2})
        replayed: list[Any] = []

        async def send(event: Any) -> None:
            replayed.append(event.message)

        stream = await store.replay_events_after(a1, send)  # a1 was pushed out by now
        later: list[Any] = []

        async def keep(event: Any) -> None:
            later.append((event.event_id, event.message))

        kept = [k for k in store._events]
        again = await store.replay_events_after(kept[0], keep)
        return replayed, later, (stream, again)

    replayed, later, (stream, again) = asyncio.run(run())
    assert replayed == [] and stream is None  # too old: nothing to replay
    assert again == "a" and [m for _, m in later] == [{"n": 2}]  # only stream a, only what came after
