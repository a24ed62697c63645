"""`tooldeck serve` offers the prompts and resources a team declares in Python (`@prompt`,
`@resource`, named by config `prompts:` / `resources:` or given to `Deck(...)`) beside the skills
and the workspace's files: listed first, rendered and read by calling their functions, completed
from `complete=`, their failures JSON-RPC errors; driven by the official `mcp` client over stdio
(and in memory for a deck built in code) in both protocol eras."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import shutil
import warnings
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from serve.helpers import HERE, make_config, stdio_params
from serve.served_declarations import PNG
from tooldeck import Deck, parse_config, prompt, resource
from tooldeck.serve import DeckServer

MODES = ["legacy", "auto"]
EXTRA = """\
prompts:
  - use: served_declarations:PROMPTS
resources:
  - use: served_declarations:RESOURCES
skills_dirs: [skills]
"""
SKILL = "---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name}.\n"


def served(folder: Path) -> Path:
    """A config naming served_declarations.py's prompts and resources, two skills (one named as a
    declared prompt) and a file in the workspace."""
    shutil.copy(HERE / "served_declarations.py", folder / "served_declarations.py")
    config = make_config(folder, EXTRA)
    for name in ("review-code", "tidy"):
        (folder / "skills" / name).mkdir(parents=True)
        (folder / "skills" / name / "SKILL.md").write_text(SKILL.format(name=name))
    (folder / "notes.txt").write_text("hello notes\n")
    return config


async def error_of(pending: Any) -> types.ErrorData:
    with pytest.raises(MCPError) as raised:
        await pending
    return raised.value.error


def text(content: Any) -> str:
    assert isinstance(content, types.TextContent), content
    return content.text


@pytest.mark.parametrize("mode", MODES)
def test_declared_prompts_come_before_the_skills_and_render_from_their_functions(
    tmp_path: Path, mode: str
) -> None:
    config = served(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            # The declared review-code wins over the skill of that name.
            assert list(prompts) == ["release_notes", "review-code", "broken", "wrong_type", "tidy"]
            notes = prompts["release_notes"]
            assert notes.description == "Write release notes for a version (declared in Python)."
            assert notes.arguments is not None
            assert [(a.name, a.description, a.required) for a in notes.arguments] == [
                ("version", "The version to write them for", True),
                ("tone", "How they should sound", False),
                ("lines", None, False),
            ]
            assert prompts["review-code"].title == "Review a file"
            assert prompts["review-code"].description == "Review one file of the workspace."
            assert not prompts["broken"].arguments

            got = await client.get_prompt("release_notes", {"version": "1.2", "lines": "5"})
            assert got.description == notes.description
            [message] = got.messages
            assert message.role == "user"
            assert text(message.content) == "Write 5 lines of notes for 1.2 in a plain tone."

            review = await client.get_prompt("review-code", {"path": "app.py"})
            assert [m.role for m in review.messages] == ["assistant", "user", "user"]
            said, embedded, image = (m.content for m in review.messages)
            assert text(said) == "I will review it."
            assert isinstance(embedded, types.EmbeddedResource)
            assert isinstance(embedded.resource, types.TextResourceContents)
            assert (str(embedded.resource.uri), embedded.resource.text) == ("file:///app.py", "print('hi')\n")
            assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
            assert base64.b64decode(image.data) == PNG

            [tidy] = (await client.get_prompt("tidy")).messages  # the skills are still served
            assert text(tidy.content) == "Do tidy."

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_what_a_declared_prompt_cannot_do_is_a_json_rpc_error_without_a_traceback(
    tmp_path: Path, mode: str
) -> None:
    config = served(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            missing = await error_of(client.get_prompt("release_notes", {"tone": "plain"}))
            assert missing.code == types.INVALID_PARAMS
            assert missing.message == "prompt 'release_notes' needs the argument 'version'"
            assert missing.data == {"prompt": "release_notes", "missing": ["version"]}
            unknown_argument = await error_of(client.get_prompt("release_notes", {"version": "1", "x": "y"}))
            assert (
                unknown_argument.code == types.INVALID_PARAMS
                and "no argument 'x'" in unknown_argument.message
            )
            wrong_type = await error_of(client.get_prompt("release_notes", {"version": "1", "lines": "many"}))
            assert wrong_type.code == types.INVALID_PARAMS
            assert "argument 'lines' must be of type int, got 'many'" in wrong_type.message

            failed = await error_of(client.get_prompt("broken"))
            assert failed.code == types.INTERNAL_ERROR
            assert failed.message == "prompt 'broken' failed: RuntimeError: the prompt broke"
            assert failed.data == {"prompt": "broken"}
            returned = await error_of(client.get_prompt("wrong_type"))
            assert returned.code == types.INTERNAL_ERROR
            assert returned.message.startswith("prompt 'wrong_type' returned a dict; a prompt returns a str")
            for error in (failed, returned):
                assert "Traceback" not in error.message and "File " not in json.dumps(error.data)

            unknown = await error_of(client.get_prompt("nope"))
            assert unknown.code == types.INVALID_PARAMS
            assert "release_notes, review-code, broken, wrong_type, tidy" in unknown.message

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_declared_prompt_arguments_and_template_variables_complete(tmp_path: Path, mode: str) -> None:
    config = served(tmp_path)
    notes = types.PromptReference(name="release_notes")
    items = types.ResourceTemplateReference(uri="test://users/{user}/items/{item}")

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:

            async def values(ref: Any, argument: str, typed: str) -> list[str]:
                return (await client.complete(ref, {"name": argument, "value": typed})).completion.values

            assert await values(notes, "tone", "p") == ["plain", "playful", "proud"]
            assert await values(notes, "tone", "PR") == ["proud"]
            assert await values(notes, "version", "1") == ["1.0", "1.1"]  # an async function
            assert await values(notes, "lines", "") == []  # nothing declared for it
            assert await values(items, "user", "a") == ["ada", "alan"]
            assert await values(items, "item", "") == []
            bad = await error_of(client.complete(notes, {"name": "colour", "value": ""}))
            assert bad.code == types.INVALID_PARAMS and "no argument 'colour'" in bad.message
            bad = await error_of(client.complete(items, {"name": "id", "value": ""}))
            assert bad.code == types.INVALID_PARAMS and "no variable 'id'" in bad.message
            # The skills' completion is still there, and unknown templates still refused.
            tidy = await client.complete(types.PromptReference(name="tidy"), {"name": "x", "value": ""})
            assert tidy.completion.values == []
            nope = types.ResourceTemplateReference(uri="test://nope/{x}")
            bad = await error_of(client.complete(nope, {"name": "x", "value": ""}))
            assert "the templates are test://users/{user}/items/{item}, file:///{path}" in bad.message

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_declared_resources_are_listed_first_and_read_from_their_functions(tmp_path: Path, mode: str) -> None:
    config = served(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            listed = (await client.list_resources()).resources
            assert [str(r.uri) for r in listed[:3]] == [
                "test://static-text",
                "test://static-binary",
                "test://broken",
            ]
            first = listed[0]
            assert (first.name, first.description, first.mime_type) == (
                "static_text",
                "A fixed text.",
                "text/plain",
            )
            assert listed[1].title == "A pixel"
            uris = [str(r.uri) for r in listed]
            assert "file:///notes.txt" in uris and "test://users/{user}/items/{item}" not in uris
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == [
                "test://users/{user}/items/{item}",
                "file:///{path}",
                "tooldeck://results/{id}",
            ]
            assert (templates[0].name, templates[0].mime_type) == ("user_item", "application/json")

            [static] = (await client.read_resource("test://static-text")).contents
            assert isinstance(static, types.TextResourceContents)
            assert (str(static.uri), static.mime_type) == ("test://static-text", "text/plain")
            assert static.text == "This is the content of the static text resource."
            [pixel] = (await client.read_resource("test://static-binary")).contents
            assert isinstance(pixel, types.BlobResourceContents) and pixel.mime_type == "image/png"
            assert base64.b64decode(pixel.blob) == PNG
            [item] = (await client.read_resource("test://users/ada%20l/items/7")).contents
            assert isinstance(item, types.TextResourceContents)
            assert (str(item.uri), item.mime_type) == ("test://users/ada%20l/items/7", "application/json")
            assert json.loads(item.text) == {"user": "ada l", "item": 7}
            [notes] = (await client.read_resource("file:///notes.txt")).contents  # files still served
            assert isinstance(notes, types.TextResourceContents) and notes.text == "hello notes\n"

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_what_a_declared_resource_cannot_do_is_a_json_rpc_error(tmp_path: Path, mode: str) -> None:
    config = served(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            failed = await error_of(client.read_resource("test://broken"))
            assert failed.code == types.INTERNAL_ERROR
            assert failed.message == "resource 'test://broken' failed: OSError: disk on fire"
            assert failed.data == {"uri": "test://broken"}
            wrong = await error_of(client.read_resource("test://users/ada/items/seven"))
            assert wrong.code == types.INVALID_PARAMS
            assert "argument 'item' must be of type int, got 'seven'" in wrong.message
            for uri in ("test://nonexistent", "test://users/ada/items/7/more"):
                missing = await error_of(client.read_resource(uri))
                assert (missing.code, missing.message, missing.data) == (
                    types.INVALID_PARAMS,
                    f"Resource not found: {uri}",
                    {"uri": uri},
                )

    asyncio.run(session())


def test_declared_resources_can_be_subscribed_to_and_unsubscribed_from(tmp_path: Path) -> None:
    config = served(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode="legacy") as client:
            with warnings.catch_warnings():  # resources/subscribe is gone at 2026-07-28, not here
                warnings.simplefilter("ignore")
                await client.subscribe_resource("test://static-text")
                await client.subscribe_resource("test://users/ada/items/7")
                await client.unsubscribe_resource("test://static-text")
                unknown = await error_of(client.subscribe_resource("test://nonexistent"))
                assert (unknown.code, unknown.data) == (types.INVALID_PARAMS, {"uri": "test://nonexistent"})

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_a_deck_built_in_code_serves_the_declarations_it_was_given(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "skills" / "ask").mkdir(parents=True)
    (tmp_path / "skills" / "ask" / "SKILL.md").write_text(SKILL.format(name="ask"))

    @prompt
    def ask(question: str) -> str:
        """Ask a question."""
        return f"Q: {question}"

    @resource("memo://{day}", mime_type="text/markdown")
    def memo(day: str) -> str:
        """The memo of a day."""
        return f"# {day}"

    config = parse_config({"skills_dirs": [str(tmp_path / "skills")], "home": str(tmp_path / "home")}, env={})
    deck = Deck(config, builtins=False, prompts=[ask], resources=[memo])
    server = DeckServer(deck, interval_s=3600)

    async def session() -> None:
        async with Client(server.server, mode=mode) as client:
            listed = (await client.list_prompts()).prompts
            assert [(p.name, p.description) for p in listed] == [("ask", "Ask a question.")]
            [message] = (await client.get_prompt("ask", {"question": "why?"})).messages
            assert text(message.content) == "Q: why?"
            [template, *_] = (await client.list_resource_templates()).resource_templates
            assert template.uri_template == "memo://{day}"
            [contents] = (await client.read_resource("memo://monday")).contents
            assert isinstance(contents, types.TextResourceContents)
            assert (contents.mime_type, contents.text) == ("text/markdown", "# monday")

    with caplog.at_level(logging.WARNING, logger="tooldeck.serve.prompts"):
        asyncio.run(session())
    assert [r.getMessage() for r in caplog.records if "not served as a prompt" in r.getMessage()] == [
        f"the skill 'ask' is not served as a prompt: a declared prompt has its name "
        f"({tmp_path / 'skills' / 'ask' / 'SKILL.md'})"
    ]
