"""`tooldeck serve` offers the workspace's files (and cut results) as read-only MCP resources,
confined like the file tools, paged, with templates, completion and subscriptions; driven by the
official `mcp` client over stdio in both protocol eras ("legacy": the 2025 handshake, where
`resources/subscribe` is; "auto": 2026-07-28, where a `subscriptions/listen` stream is)."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated

from serve.helpers import BIN, HERE
from serve.resource_tools import long_lines

MODES = ["legacy", "auto"]
PIXEL = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
CONFIG = """\
platform_toolsets: {cli: [res]}
tools:
  - use: resource_tools:long_text
sandbox:
  workspace: ws
  protected: [.env]
execution: {max_result_chars: 500}
home: ws/home
"""
MANY = [f"many/f{i:03d}.txt" for i in range(130)]
LISTED = {"notes.txt", "docs/guide.md", "pixel.png", "alias.txt", "zeta.txt", *MANY}


def served(folder: Path) -> StdioServerParameters:
    """A config (outside the workspace `ws`) next to resource_tools.py, and the workspace's files."""
    shutil.copy(HERE / "resource_tools.py", folder / "resource_tools.py")
    config = folder / "tooldeck.yaml"
    config.write_text(CONFIG)
    ws = folder / "ws"
    files = {
        "notes.txt": "hello notes\n",
        "zeta.txt": "z\n",
        "docs/guide.md": "# Guide\n",
        ".env": "SECRET=1\n",  # protected by the config's sandbox.protected
        ".mcp.json": "{}\n",  # protected by default
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/config": "[core]\n",
        "node_modules/pkg/index.js": "module.exports = 1\n",
        "home/secret.txt": "the home is hidden\n",
        **{name: f"file {name}\n" for name in MANY},
    }
    for name, text in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    (ws / "pixel.png").write_bytes(PIXEL)
    (folder / "outside.txt").write_text("outside secret\n")
    os.symlink("notes.txt", ws / "alias.txt")
    os.symlink("../outside.txt", ws / "escape.txt")
    return StdioServerParameters(
        command=str(BIN), args=["serve", "--config", str(config), "--interval", "0.2"]
    )


async def error_of(pending: Any) -> types.ErrorData:
    with pytest.raises(MCPError) as raised:
        await pending
    return raised.value.error


async def all_pages(client: Client) -> list[list[types.Resource]]:
    pages: list[list[types.Resource]] = []
    cursor: str | None = None
    while True:
        page = await client.list_resources(cursor=cursor)
        pages.append(page.resources)
        cursor = page.next_cursor
        if cursor is None:
            return pages


def file_names(resources: list[types.Resource]) -> list[str]:
    return [r.name for r in resources if str(r.uri).startswith("file:")]


@pytest.mark.parametrize("mode", MODES)
def test_lists_the_workspace_in_pages_without_protected_hidden_or_git_files(
    tmp_path: Path, mode: str
) -> None:
    params = served(tmp_path)

    async def session() -> None:
        async with Client(params, mode=mode) as client:
            resources = client.server_capabilities.resources
            assert resources is not None and resources.subscribe is True and resources.list_changed is False
            assert client.server_capabilities.completions is not None

            pages = await all_pages(client)
            assert [len(p) for p in pages] == [100, len(LISTED) - 100]
            names = [name for page in pages for name in file_names(page)]
            assert len(names) == len(set(names)) and set(names) == LISTED
            assert names == sorted(names, key=lambda n: n.split("/"))  # path order, page after page

            by_name = {r.name: r for page in pages for r in page}
            notes = by_name["notes.txt"]
            assert (str(notes.uri), notes.size, notes.mime_type) == ("file:///notes.txt", 12, "text/plain")
            assert notes.annotations is not None and notes.annotations.last_modified
            assert by_name["pixel.png"].mime_type == "image/png"
            assert by_name["pixel.png"].size == len(PIXEL)
            assert str(by_name["docs/guide.md"].uri) == "file:///docs/guide.md"

            bad = await error_of(client.list_resources(cursor="not a cursor"))
            assert bad.code == types.INVALID_PARAMS and "cursor" in bad.message

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_reads_text_and_binary_and_refuses_what_the_file_tools_refuse(tmp_path: Path, mode: str) -> None:
    params = served(tmp_path)

    async def session() -> None:
        async with Client(params, mode=mode) as client:
            [notes] = (await client.read_resource("file:///notes.txt")).contents
            assert isinstance(notes, types.TextResourceContents)
            assert (notes.text, notes.mime_type, str(notes.uri)) == (
                "hello notes\n",
                "text/plain",
                "file:///notes.txt",
            )
            [pixel] = (await client.read_resource("file:///pixel.png")).contents
            assert isinstance(pixel, types.BlobResourceContents) and pixel.mime_type == "image/png"
            assert base64.b64decode(pixel.blob) == PIXEL
            # A template expanded the RFC 6570 way encodes the slash; a symlink inside is followed.
            [guide] = (await client.read_resource("file:///docs%2Fguide.md")).contents
            assert isinstance(guide, types.TextResourceContents) and guide.text == "# Guide\n"
            [alias] = (await client.read_resource("file:///alias.txt")).contents
            assert isinstance(alias, types.TextResourceContents) and alias.text == "hello notes\n"

            refusals = {
                "file:///../outside.txt": "'..'",
                "file:///docs/%2E%2E/%2E%2E/outside.txt": "'..'",
                "file:///escape.txt": "symlink that leads outside",
                "file:///.env": "protected",
                "file:///.mcp.json": "protected",
                "file:///.git/config": "protected",
                "file:///docs": "folder",
            }
            for uri, why in refusals.items():
                error = await error_of(client.read_resource(uri))
                assert error.code == types.INVALID_PARAMS, uri
                assert why in error.message and error.data["uri"] == uri, (uri, error)
                assert "outside secret" not in error.message and "SECRET" not in error.message

            # Missing: SEP-2164's invalid params with the URI as data; the home is missing too.
            for uri in (
                "file:///nope.txt",
                "file:///home/secret.txt",
                "https://example.com/x",
                "file:///notes.txt/x",
            ):
                error = await error_of(client.read_resource(uri))
                assert (error.code, error.message, error.data) == (
                    types.INVALID_PARAMS,
                    f"Resource not found: {uri}",
                    {"uri": uri},
                ), uri

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_templates_and_path_completion(tmp_path: Path, mode: str) -> None:
    params = served(tmp_path)
    template = types.ResourceTemplateReference(uri="file:///{path}")

    async def completed(client: Client, value: str) -> types.Completion:
        return (await client.complete(template, {"name": "path", "value": value})).completion

    async def session() -> None:
        async with Client(params, mode=mode) as client:
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["file:///{path}", "tooldeck://results/{id}"]

            top = await completed(client, "")
            assert top.values == ["alias.txt", "docs/", "many/", "notes.txt", "pixel.png", "zeta.txt"]
            assert (await completed(client, "do")).values == ["docs/"]
            assert (await completed(client, "docs/")).values == ["docs/guide.md"]
            assert (await completed(client, "/docs/g")).values == ["docs/guide.md"]
            assert (await completed(client, "many/f01")).values == [f"many/f01{i}.txt" for i in range(10)]
            many = await completed(client, "many/")
            assert len(many.values) == 100 and many.total == 130 and many.has_more is True
            assert (await completed(client, "../")).values == []
            assert (await completed(client, ".g")).values == []  # .git is not offered

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_cut_results_are_resources_of_the_session(tmp_path: Path, mode: str) -> None:
    params = served(tmp_path)

    async def session() -> None:
        async with Client(params, mode=mode) as client:
            result = await client.call_tool("long_text", {"lines": 200})
            assert result.is_error is False
            [block] = result.content
            assert isinstance(block, types.TextContent)
            found = re.search(r"kept as id '([^']+)'", block.text)
            assert found is not None, block.text
            uri = f"tooldeck://results/{found.group(1)}"

            first = (await client.list_resources()).resources
            assert str(first[0].uri) == uri and first[0].mime_type == "text/plain"
            [whole] = (await client.read_resource(uri)).contents
            assert isinstance(whole, types.TextResourceContents) and whole.text == long_lines(200)

            completion = await client.complete(
                types.ResourceTemplateReference(uri="tooldeck://results/{id}"), {"name": "id", "value": "mcp"}
            )
            assert completion.completion.values == [found.group(1)]
            missing = "tooldeck://results/mcp-none"
            error = await error_of(client.read_resource(missing))
            assert (error.code, error.data) == (types.INVALID_PARAMS, {"uri": missing})

    asyncio.run(session())


def test_a_subscribed_file_that_changes_is_announced_until_unsubscribed(tmp_path: Path) -> None:
    params = served(tmp_path)
    ws = tmp_path / "ws"
    updated: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            arrived.set()

    async def session() -> None:
        nonlocal arrived
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            with warnings.catch_warnings():  # resources/subscribe is gone at 2026-07-28, not here
                warnings.simplefilter("ignore")
                await client.subscribe_resource("file:///notes.txt")
                refused = await error_of(client.subscribe_resource("file:///../outside.txt"))
                assert refused.code == types.INVALID_PARAMS
                protected = await error_of(client.subscribe_resource("file:///.env"))
                assert protected.code == types.INVALID_PARAMS and "protected" in protected.message

                (ws / "notes.txt").write_text("changed notes\n")
                with anyio.fail_after(30):
                    await arrived.wait()
                assert updated == ["file:///notes.txt"]
                [notes] = (await client.read_resource("file:///notes.txt", cache_mode="bypass")).contents
                assert isinstance(notes, types.TextResourceContents) and notes.text == "changed notes\n"

                await client.unsubscribe_resource("file:///notes.txt")
                await client.subscribe_resource("file:///zeta.txt")
                arrived = anyio.Event()
                # notes.txt sorts before zeta.txt and changes first: were it still watched, its
                # notification would come before zeta's.
                (ws / "notes.txt").write_text("changed again\n")
                (ws / "zeta.txt").write_text("zeta changed\n")
                with anyio.fail_after(30):
                    await arrived.wait()
                assert updated == ["file:///notes.txt", "file:///zeta.txt"]

    asyncio.run(session())


def test_a_listen_stream_hears_of_its_resource_subscriptions_at_2026(tmp_path: Path) -> None:
    params = served(tmp_path)
    ws = tmp_path / "ws"

    async def session() -> None:
        async with Client(params, mode="auto") as client:
            assert client.protocol_version == "2026-07-28"
            async with client.listen(resource_subscriptions=["file:///docs/guide.md"]) as events:
                (ws / "docs" / "guide.md").write_text("# Guide, changed\n")
                with anyio.fail_after(30):
                    event = await anext(aiter(events))
            assert event == ResourceUpdated(uri="file:///docs/guide.md")
            [guide] = (await client.read_resource("file:///docs/guide.md", cache_mode="bypass")).contents
            assert isinstance(guide, types.TextResourceContents) and guide.text == "# Guide, changed\n"

    asyncio.run(session())
