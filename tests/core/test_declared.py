"""`@prompt` and `@resource`: what a declaration takes from its function, how it is called with a
client's string arguments, what it may return, completion, and what is refused (at decoration,
with a message saying why)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tooldeck import (
    EmbeddedResource,
    ImageContent,
    PromptMessage,
    TextContent,
    prompt,
    resource,
)
from tooldeck.core import DeclaredResource, Prompt, PromptArgument
from tooldeck.errors import ArgumentsError, RenderError, ToolDefinitionError

PNG = b"\x89PNG\r\n\x1a\nbytes"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- prompts ------------------------------------------------------------------------------------


@prompt(complete={"tone": ["plain", "Playful", "proud"]})
def release_notes(version: str, tone: str = "plain", lines: int = 3) -> str:
    """Write release notes for a version.

    More words for human readers.

    Args:
        version: The version to write them for.
        tone: How they should sound.
    """
    return f"{lines} lines for {version}, {tone}"


def test_a_prompt_takes_its_name_description_and_arguments_from_the_function() -> None:
    assert isinstance(release_notes, Prompt)
    assert release_notes.name == "release_notes"
    assert release_notes.description == "Write release notes for a version.\n\nMore words for human readers."
    assert release_notes.arguments == (
        PromptArgument("version", "The version to write them for.", required=True),
        PromptArgument("tone", "How they should sound.", required=False),
        PromptArgument("lines", None, required=False),
    )
    assert release_notes.owner == f"{__name__}:release_notes"

    @prompt(name="review-code", title="Review", description="Review one file.")
    def review(path: str) -> str:
        """Ignored: description= wins."""
        return path

    assert (review.name, review.title, review.description) == ("review-code", "Review", "Review one file.")


def test_rendering_converts_arguments_to_the_parameter_types() -> None:
    [message] = run(release_notes.render({"version": "1.2", "lines": "5"}))
    assert message == PromptMessage("user", TextContent("5 lines for 1.2, plain"))

    @prompt
    async def listing(names: list[str], loud: bool = False) -> str:
        return ",".join(n.upper() if loud else n for n in names)

    [message] = run(listing.render({"names": '["a", "b"]', "loud": "true"}))
    assert message.block == TextContent("A,B")


def test_a_prompt_returns_text_blocks_messages_or_a_list_of_them() -> None:
    @prompt
    def mixed(uri: str) -> list[object]:
        return [
            PromptMessage("assistant", "I will look."),
            EmbeddedResource(uri, "text/plain", text="inside"),
            ImageContent(PNG, "image/png"),
            "Now answer.",
        ]

    messages = run(mixed.render({"uri": "test://doc"}))
    assert [m.role for m in messages] == ["assistant", "user", "user", "user"]
    assert [m.block for m in messages] == [
        TextContent("I will look."),
        EmbeddedResource("test://doc", "text/plain", text="inside"),
        ImageContent(PNG, "image/png"),
        TextContent("Now answer."),
    ]

    @prompt
    def one_block() -> ImageContent:
        return ImageContent(PNG, "image/png")

    assert run(one_block.render()) == (PromptMessage("user", ImageContent(PNG, "image/png")),)


def test_arguments_a_prompt_cannot_take_are_an_arguments_error_naming_them() -> None:
    with pytest.raises(ArgumentsError, match="needs the argument 'version'") as missing:
        run(release_notes.render({"tone": "plain"}))
    assert missing.value.missing == ("version",)
    with pytest.raises(ArgumentsError, match=r"takes no argument 'colour'; its arguments are: 'version'"):
        run(release_notes.render({"version": "1", "colour": "red"}))
    with pytest.raises(ArgumentsError, match=r"argument 'lines' must be of type int, got 'many'"):
        run(release_notes.render({"version": "1", "lines": "many"}))
    # An empty value is a value (only a missing one is missing).
    [message] = run(release_notes.render({"version": ""}))
    assert message.block == TextContent("3 lines for , plain")


def test_a_failing_or_wrongly_returning_prompt_is_a_render_error_naming_it() -> None:
    @prompt
    def broken() -> str:
        raise RuntimeError("the prompt broke")

    with pytest.raises(
        RenderError, match=r"^prompt 'broken' failed: RuntimeError: the prompt broke$"
    ) as failed:
        run(broken.render())
    assert isinstance(failed.value.__cause__, RuntimeError)

    @prompt
    def numbers() -> list[object]:
        return ["fine", 3]

    with pytest.raises(RenderError, match=r"prompt 'numbers' returned item 1 a int; a prompt returns a str"):
        run(numbers.render())

    @prompt
    def refuses(code: str) -> str:
        raise ArgumentsError(f"no such code {code!r}")

    with pytest.raises(ArgumentsError, match="no such code 'x'"):  # its own refusal, as is
        run(refuses.render({"code": "x"}))


def test_prompt_completion_from_a_list_or_a_function() -> None:
    assert run(release_notes.completions("tone", "p")) == (["plain", "Playful", "proud"], 3)
    assert run(release_notes.completions("tone", "PR")) == (["proud"], 1)
    assert run(release_notes.completions("version", "1")) == ([], 0)

    def versions(typed: str) -> list[str]:
        return [v for v in ("1.0", "1.1", "2.0") if v.startswith(typed)]

    async def many(typed: str) -> list[str]:
        return [f"{typed}{i}" for i in range(150)]

    @prompt(complete={"version": versions, "tone": many})
    def notes(version: str, tone: str = "") -> str:
        return version

    assert run(notes.completions("version", "1")) == (["1.0", "1.1"], 2)
    values, total = run(notes.completions("tone", "t"))
    assert (len(values), values[0], total) == (100, "t0", 150)

    def broken(typed: str) -> list[str]:
        raise KeyError(typed)

    @prompt(complete={"a": broken, "b": lambda typed: [1]})
    def two(a: str, b: str) -> str:
        return a

    with pytest.raises(RenderError, match=r"completing prompt 'two' argument 'a' failed: KeyError"):
        run(two.completions("a", "x"))
    with pytest.raises(RenderError, match=r"returned a int, not a str"):
        run(two.completions("b", "x"))


def test_prompt_declarations_that_cannot_work_are_refused_saying_why() -> None:
    def star(*names: str) -> str:
        return ""

    def kwargs(**names: str) -> str:
        return ""

    def positional(name: str, /) -> str:
        return name

    for fn in (star, kwargs, positional):
        with pytest.raises(ToolDefinitionError, match="cannot be filled in by name"):
            prompt(fn)
    with pytest.raises(
        ToolDefinitionError, match="complete= names 'colour', which is not one of its arguments"
    ):
        prompt(complete={"colour": ["red"]})(release_notes.fn)
    with pytest.raises(ToolDefinitionError, match=r"complete\['tone'\] must be a list of strings"):
        prompt(complete={"tone": "plain"})(release_notes.fn)
    with pytest.raises(ToolDefinitionError, match="no usable name"):
        prompt(lambda: "x")
    for bad in ("", " padded ", "bell\x07", "x" * 129):
        with pytest.raises(ToolDefinitionError, match="a prompt name is"):
            prompt(name=bad)(release_notes.fn)
    with pytest.raises(ValueError, match="'user' or 'assistant'"):
        PromptMessage("system", "hi")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a str or a content block, got dict"):
        PromptMessage("user", {"type": "text"})  # type: ignore[arg-type]


# -- resources ----------------------------------------------------------------------------------


def test_a_fixed_resource_returns_text_bytes_or_embedded_resources() -> None:
    @resource("test://static-text")
    def static_text() -> str:
        """A fixed text."""
        return "hello"

    @resource("test://static-binary", mime_type="image/png", name="pixel")
    async def static_binary() -> bytes:
        return PNG

    @resource("test://two")
    def two() -> list[EmbeddedResource]:
        return [
            EmbeddedResource("test://two#a", text="a"),
            EmbeddedResource("test://two#b", "application/json", text="{}"),
        ]

    assert isinstance(static_text, DeclaredResource)
    assert (static_text.name, static_text.description, static_text.is_template) == (
        "static_text",
        "A fixed text.",
        False,
    )
    assert static_binary.name == "pixel"
    assert run(static_text.read("test://static-text")) == (
        EmbeddedResource("test://static-text", "text/plain", text="hello"),
    )
    assert run(static_binary.read("test://static-binary")) == (
        EmbeddedResource("test://static-binary", "image/png", blob=PNG),
    )
    assert [c.uri for c in run(two.read("test://two"))] == ["test://two#a", "test://two#b"]
    assert static_text.match("test://static-text") == {} and static_text.match("test://static-text/x") is None


def test_a_template_matches_one_segment_per_variable_and_converts_it() -> None:
    @resource(
        "test://users/{user}/items/{item}", mime_type="application/json", complete={"user": ["ada", "alan"]}
    )
    def item(user: str, item: int, pretty: bool = False) -> str:
        return json.dumps({"user": user, "item": item})

    assert item.is_template and item.variables == ("user", "item")
    assert item.match("test://users/ada%20l/items/7") == {"user": "ada l", "item": "7"}
    for other in (
        "test://users/a/b/items/7",
        "test://users//items/7",
        "test://users/a/items/7?x=1",
        "test://x",
    ):
        assert item.match(other) is None, other
    [content] = run(item.read("test://users/ada/items/7"))
    assert content == EmbeddedResource(
        "test://users/ada/items/7", "application/json", text='{"user": "ada", "item": 7}'
    )
    with pytest.raises(ArgumentsError, match=r"argument 'item' must be of type int, got 'seven'"):
        run(item.read("test://users/ada/items/seven"))
    assert run(item.completions("user", "a")) == (["ada", "alan"], 2)
    assert run(item.completions("item", "")) == ([], 0)


def test_a_failing_or_wrongly_returning_resource_is_a_render_error_naming_it() -> None:
    @resource("test://broken")
    def broken() -> str:
        raise OSError("disk on fire")

    @resource("test://nothing")
    def nothing() -> None:
        return None

    @resource("test://empty")
    def empty() -> list[str]:
        return []

    with pytest.raises(RenderError, match=r"^resource 'test://broken' failed: OSError: disk on fire$"):
        run(broken.read("test://broken"))
    with pytest.raises(
        RenderError, match=r"resource 'test://nothing' returned a NoneType; a resource returns a str"
    ):
        run(nothing.read("test://nothing"))
    with pytest.raises(RenderError, match="returned no contents"):
        run(empty.read("test://empty"))


def test_resource_declarations_that_cannot_work_are_refused_saying_why() -> None:
    def f(id: str) -> str:
        return id

    refused = {
        "no scheme": "starts with a scheme",
        "test://a b": "starts with a scheme",
        "test://{+path}": r"\{\+path\} is not a simple variable",
        "test://{?q}": "is not a simple variable",
        "test://{id*}": "is not a simple variable",
        "test://{id}/{id}": "the variable 'id' appears twice",
        "test://{id": "an unmatched brace",
        "test://id}": "an unmatched brace",
    }
    for uri, message in refused.items():
        with pytest.raises(ToolDefinitionError, match=message):
            resource(uri)  # refused where it is written, before any function
    with pytest.raises(ToolDefinitionError, match="the function has no parameter 'other'"):
        resource("test://{other}")(f)
    with pytest.raises(
        ToolDefinitionError, match="parameter 'id' is not a variable of the URI and has no default"
    ):
        resource("test://fixed")(f)
    with pytest.raises(ToolDefinitionError, match="complete= names 'nope'"):
        resource("test://{id}", complete={"nope": ["x"]})(f)
    with pytest.raises(ToolDefinitionError, match="needs the URI first"):
        resource(f)  # type: ignore[arg-type]
