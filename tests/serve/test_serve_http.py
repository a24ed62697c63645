"""`tooldeck serve --transport http`: streamable HTTP at http://127.0.0.1:PORT/mcp, with a token."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from serve.helpers import BIN, http_server, make_config, tools_json_names
from support.mcp_text import text_of

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def list_and_call(url: str, mode: str, token: str | None = None) -> tuple[list[str], str, bool]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        names = [t.name for t in (await client.list_tools()).tools]
        ok = await client.call_tool("shout", {"text": "over http"})
        bad = await client.call_tool("explode", {})
        return names, text_of(ok), bad.is_error


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_http_lists_and_calls(tmp_path: Path, mode: str) -> None:
    config = make_config(tmp_path)
    with http_server(config) as url:
        names, shouted, failed = asyncio.run(list_and_call(url, mode))
    assert names == tools_json_names(config)
    assert shouted == "OVER HTTP" and failed is True


def test_a_configured_token_is_required(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    with http_server(
        config, "--token", "${SERVE_TOKEN}", env={"SERVE_TOKEN": "s3cret-token-of-24-chars"}
    ) as url:
        without = httpx.post(url, json=INITIALIZE, headers=HEADERS, timeout=10)
        wrong = httpx.post(
            url, json=INITIALIZE, headers={**HEADERS, "authorization": "Bearer nope"}, timeout=10
        )
        right = httpx.post(
            url,
            json=INITIALIZE,
            headers={**HEADERS, "authorization": "Bearer s3cret-token-of-24-chars"},
            timeout=10,
        )
        names, _, _ = asyncio.run(list_and_call(url, "auto", token="s3cret-token-of-24-chars"))
    assert without.status_code == 401 and "Bearer" in without.headers["www-authenticate"]
    assert wrong.status_code == 401
    assert right.status_code == 200
    assert names == ["dawdle", "explode", "guarded", "shout"]


def test_another_interface_needs_a_token_and_a_missing_token_variable_is_named(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    exposed = subprocess.run(
        [str(BIN), "serve", "--transport", "http", "--host", "0.0.0.0", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert exposed.returncode == 2
    assert "0.0.0.0" in exposed.stderr and "--token" in exposed.stderr
    missing = subprocess.run(
        [
            str(BIN),
            "serve",
            "--transport",
            "http",
            "--token",
            "${NO_SUCH_TOKEN_VAR}",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "NO_SUCH_TOKEN_VAR" in missing.stderr


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run(
            [str(BIN), "serve", "--transport", "http", "--port", str(port), "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 2, out.stderr
    [line] = out.stderr.strip().splitlines()
    assert f"cannot listen on 127.0.0.1:{port}" in line and "in use" in line, line


@pytest.mark.parametrize("token", ["x", "fifteen-chars-x"])
def test_a_short_token_is_refused(tmp_path: Path, token: str) -> None:
    config = make_config(tmp_path)
    out = subprocess.run(
        [str(BIN), "serve", "--transport", "http", "--port", "0", "--token", token, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert f"is {len(token)} character" in out.stderr and "at least 16" in out.stderr, out.stderr


def test_a_page_of_another_origin_cannot_drive_the_http_transport(tmp_path: Path) -> None:
    # What another local page can send without asking the server first (a text/plain body) is
    # refused, and so is a Host that does not name the server (a name rebound to loopback).
    config = make_config(tmp_path)
    with http_server(config) as url:
        port = url.split(":")[2].split("/")[0]
        plain = {**HEADERS, "content-type": "text/plain", "origin": "http://127.0.0.1:1"}
        simple = httpx.post(url, json=INITIALIZE, headers=plain, timeout=10)
        rebound = httpx.post(
            url, json=INITIALIZE, headers={**HEADERS, "host": f"evil.example:{port}"}, timeout=10
        )
        own = httpx.post(url, json=INITIALIZE, headers=HEADERS, timeout=10)
    assert simple.status_code in (400, 403, 415) and rebound.status_code in (403, 421), (simple, rebound)
    assert own.status_code == 200
