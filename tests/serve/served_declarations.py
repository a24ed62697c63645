"""Prompts and resources declared with tooldeck's public API, for test_serve_declared.py (named
by config `prompts:` / `resources:` entries, or given to `Deck(prompts=..., resources=...)`)."""

from __future__ import annotations

import json

from tooldeck import EmbeddedResource, ImageContent, PromptMessage, prompt, resource

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


async def versions(typed: str) -> list[str]:
    return [v for v in ("1.0", "1.1", "2.0") if v.startswith(typed)]


@prompt(complete={"tone": ["plain", "playful", "proud"], "version": versions})
def release_notes(version: str, tone: str = "plain", lines: int = 3) -> str:
    """Write release notes for a version (declared in Python).

    Args:
        version: The version to write them for
        tone: How they should sound
    """
    return f"Write {lines} lines of notes for {version} in a {tone} tone."


@prompt(name="review-code", title="Review a file")
async def review(path: str) -> list[object]:
    """Review one file of the workspace.

    Args:
        path: The file to review
    """
    return [
        PromptMessage("assistant", "I will review it."),
        EmbeddedResource(f"file:///{path}", "text/plain", text="print('hi')\n"),
        ImageContent(PNG, "image/png"),
    ]


@prompt
def broken() -> str:
    """Always fails."""
    raise RuntimeError("the prompt broke")


@prompt
def wrong_type() -> object:
    """Returns what a prompt cannot be."""
    return {"not": "a message"}


@resource("test://static-text", mime_type="text/plain")
def static_text() -> str:
    """A fixed text."""
    return "This is the content of the static text resource."


@resource("test://static-binary", mime_type="image/png", title="A pixel")
def static_binary() -> bytes:
    """A fixed image."""
    return PNG


@resource(
    "test://users/{user}/items/{item}",
    mime_type="application/json",
    complete={"user": ["ada", "alan", "grace"]},
)
async def user_item(user: str, item: int) -> str:
    """One item of one user."""
    return json.dumps({"user": user, "item": item})


@resource("test://broken")
def broken_resource() -> str:
    """Always fails."""
    raise OSError("disk on fire")


PROMPTS = [release_notes, review, broken, wrong_type]
RESOURCES = [static_text, static_binary, user_item, broken_resource]
