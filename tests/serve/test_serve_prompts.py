"""`tooldeck serve` offers the deck's skills as MCP prompts: arguments from the SKILL.md front
matter, the body with them substituted, the skill's files it mentions, completion of declared
values, and `list_changed` when a skill changes; driven by the official `mcp` client over stdio in
both protocol eras."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import PromptsListChanged

from serve.helpers import make_config, stdio_params
from tooldeck.serve.prompts import mentions, parse_arguments, substitute

MODES = ["legacy", "auto"]
PIXEL = b"\x89PNG\r\n\x1a\n" + b"logo-bytes"
RELEASE_NOTES = """\
---
name: release-notes
description: Write release notes for a version.
arguments:
  - name: version
    description: The version to write them for
    required: true
  - name: tone
    description: How they should sound
    values: [plain, playful, proud]
---
Write the notes for {{version}} in a {{ tone }} tone ($ARGUMENTS).
Follow template.md and put logo.png on top. Leave {{other}} alone.
"""
TIDY = """\
---
name: tidy
description: Tidy the workspace.
---
Tidy the workspace: remove what is not needed.
"""


def skills(folder: Path) -> Path:
    """A config with two skills: one with arguments and files, one without."""
    config = make_config(folder, "skills_dirs: [skills]\n")
    notes = folder / "skills" / "release-notes"
    notes.mkdir(parents=True)
    (notes / "SKILL.md").write_text(RELEASE_NOTES)
    (notes / "template.md").write_text("# {version}\n- what changed\n")
    (notes / "logo.png").write_bytes(PIXEL)
    (notes / "unused.md").write_text("not mentioned, not attached\n")
    (folder / "skills" / "tidy").mkdir()
    (folder / "skills" / "tidy" / "SKILL.md").write_text(TIDY)
    return config


async def error_of(pending: Any) -> types.ErrorData:
    with pytest.raises(MCPError) as raised:
        await pending
    return raised.value.error


@pytest.mark.parametrize("mode", MODES)
def test_skills_are_prompts_with_their_arguments_and_files(tmp_path: Path, mode: str) -> None:
    config = skills(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert list(prompts) == ["release-notes", "tidy"]
            notes = prompts["release-notes"]
            assert notes.description == "Write release notes for a version."
            assert notes.arguments is not None
            assert [(a.name, a.description, a.required) for a in notes.arguments] == [
                ("version", "The version to write them for", True),
                ("tone", "How they should sound", False),
            ]
            assert not prompts["tidy"].arguments

            got = await client.get_prompt("release-notes", {"version": "1.2", "tone": "proud"})
            assert got.description == "Write release notes for a version."
            assert [m.role for m in got.messages] == ["user", "user", "user"]
            text, image, embedded = (m.content for m in got.messages)
            assert isinstance(text, types.TextContent)
            assert text.text == (
                "Write the notes for 1.2 in a proud tone (1.2 proud).\n"
                "Follow template.md and put logo.png on top. Leave {{other}} alone."
            )
            assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
            assert base64.b64decode(image.data) == PIXEL
            assert isinstance(embedded, types.EmbeddedResource)
            assert isinstance(embedded.resource, types.TextResourceContents)
            assert str(embedded.resource.uri) == "tooldeck://skills/release-notes/template.md"
            assert embedded.resource.text == "# {version}\n- what changed\n"

            optional_left_out = await client.get_prompt("release-notes", {"version": "2.0"})
            first = optional_left_out.messages[0].content
            assert isinstance(first, types.TextContent)
            assert first.text.startswith("Write the notes for 2.0 in a  tone (2.0).")

            [tidy] = (await client.get_prompt("tidy")).messages
            assert isinstance(tidy.content, types.TextContent)
            assert tidy.content.text == "Tidy the workspace: remove what is not needed."

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_a_missing_prompt_or_required_argument_is_invalid_params_naming_it(tmp_path: Path, mode: str) -> None:
    config = skills(tmp_path)

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:
            missing = await error_of(client.get_prompt("release-notes", {"tone": "plain"}))
            assert missing.code == types.INVALID_PARAMS and "'version'" in missing.message
            assert missing.data == {"prompt": "release-notes", "missing": ["version"]}
            empty = await error_of(client.get_prompt("release-notes", {"version": ""}))
            assert empty.code == types.INVALID_PARAMS and "'version'" in empty.message
            unknown = await error_of(client.get_prompt("release-note"))
            assert unknown.code == types.INVALID_PARAMS
            assert "'release-note'" in unknown.message and "release-notes, tidy" in unknown.message

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_argument_values_complete(tmp_path: Path, mode: str) -> None:
    config = skills(tmp_path)
    ref = types.PromptReference(name="release-notes")

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode) as client:

            async def values(argument: str, typed: str) -> list[str]:
                return (await client.complete(ref, {"name": argument, "value": typed})).completion.values

            assert await values("tone", "") == ["plain", "playful", "proud"]
            assert await values("tone", "p") == ["plain", "playful", "proud"]
            assert await values("tone", "PR") == ["proud"]
            assert await values("tone", "x") == []
            assert await values("version", "1") == []  # no values declared
            unknown = await error_of(
                client.complete(types.PromptReference(name="nope"), {"name": "a", "value": ""})
            )
            assert unknown.code == types.INVALID_PARAMS and "'nope'" in unknown.message

    asyncio.run(session())


@pytest.mark.parametrize("mode", MODES)
def test_a_new_skill_is_announced_as_a_changed_prompt_list(tmp_path: Path, mode: str) -> None:
    config = skills(tmp_path)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.PromptListChangedNotification):
            changed.set()

    def add_skill() -> None:
        folder = tmp_path / "skills" / "brand-new"
        folder.mkdir()
        (folder / "SKILL.md").write_text("---\nname: brand-new\ndescription: Just added.\n---\nNew.\n")

    async def session() -> None:
        async with Client(stdio_params(config), mode=mode, message_handler=on_message) as client:
            prompts = client.server_capabilities.prompts
            assert prompts is not None and prompts.list_changed is True
            assert "brand-new" not in [p.name for p in (await client.list_prompts()).prompts]
            if mode == "legacy":
                add_skill()
                with anyio.fail_after(30):
                    await changed.wait()
            else:
                async with client.listen(prompts_list_changed=True) as events:
                    add_skill()
                    with anyio.fail_after(30):
                        event = await anext(aiter(events))
                assert event == PromptsListChanged()
            listed = [p.name for p in (await client.list_prompts(cache_mode="bypass")).prompts]
            assert listed == ["brand-new", "release-notes", "tidy"]

    asyncio.run(session())


def test_front_matter_arguments_and_substitution_rules() -> None:
    declared = parse_arguments(
        "---\nname: x\ndescription: y\narguments:\n  - topic\n  - name: 'bad name'\n"
        "  - {name: n, values: [1, true, two]}\n  - 7\n---\nbody\n"
    )
    assert [(a.name, a.required, a.values) for a in declared] == [
        ("topic", False, ()),
        ("n", False, ("1", "true", "two")),
    ]
    assert parse_arguments("no front matter") == ()
    # Arguments the body does not name are listed after it; undeclared ones are ignored.
    assert (
        substitute("Do it.", declared, {"topic": "tests", "zzz": "?"})
        == "Do it.\n\nArguments:\n- topic: tests"
    )
    assert substitute("On {{topic}}: $ARGUMENTS", declared, {"topic": "a", "n": "2"}) == "On a: a 2"
    assert substitute("{{topic}}", declared, {"topic": "$ARGUMENTS {{n}}", "n": "2"}) == "$ARGUMENTS {{n}}"

    assert mentions("see references/guide.md.", "references/guide.md")
    assert mentions("see [it](./guide.md)", "guide.md")
    assert not mentions("see references/guide.md", "guide.md")
    assert not mentions("see guide.mdx", "guide.md")
    assert not mentions("see myguide.md", "guide.md")
