"""`@prompt`: a prompt template a team declares in Python, which `tooldeck serve` offers as an
MCP prompt beside the skills.

    @prompt(complete={"tone": ["plain", "cheerful"]})
    def release_notes(version: str, tone: str = "plain") -> str:
        '''Write release notes for a version.

        Args:
            version: The version to write them for.
            tone: How they should sound.
        '''
        return f"Write the notes for {version} in a {tone} tone."

The name is the function's (any MCP name; `name=` changes it), the description the docstring's
summary, and the arguments the parameters: required when they have no default, described by
the docstring's `Args:`. The function, sync or async, returns a str (one user message), a content
block (one user message carrying it), a `PromptMessage`, or a list of any of these (one message
each); see `declared.py` for how arguments are converted and how failures are reported.
`complete={"arg": [...] or fn}` gives completion values for an argument.

Nothing here knows MCP's wire form: serve maps a `Prompt` to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

from tooldeck._core.content import BLOCK_TYPES, ContentBlock, TextContent
from tooldeck._core.context import ToolContext
from tooldeck._core.declared import (
    Call,
    Completion,
    checked_completions,
    completions,
    context_param,
    name_of,
    owner_of,
    read_params,
    summary,
)
from tooldeck.errors import ArgumentsError, RenderError, ToolDefinitionError

Role = Literal["user", "assistant"]
MAX_NAME = 128


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """One message of a rendered prompt: who says it, and one content block (a str is text)."""

    role: Role
    content: ContentBlock | str

    def __post_init__(self) -> None:
        if self.role not in ("user", "assistant"):
            raise ValueError(f"a prompt message's role is 'user' or 'assistant', got {self.role!r}")
        if isinstance(self.content, str):
            object.__setattr__(self, "content", TextContent(self.content))
        elif not isinstance(self.content, BLOCK_TYPES):
            raise TypeError(
                f"a prompt message's content is a str or a content block, got {type(self.content).__name__}"
            )

    @property
    def block(self) -> ContentBlock:
        """The content as a block (a str given was made a `TextContent`)."""
        content = self.content
        return TextContent(content) if isinstance(content, str) else content


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument a prompt takes, as a client is shown it."""

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, eq=False)
class Prompt:
    """A declared prompt (built by `@prompt`); `render` calls its function."""

    fn: Callable[..., Any]
    name: str
    description: str | None = None
    title: str | None = None
    complete: Mapping[str, Completion] = field(default_factory=dict)
    # Who declared it, for conflict errors: "module:function", "config prompts[2] (mod:attr)".
    owner: str = ""
    arguments: tuple[PromptArgument, ...] = field(init=False)
    _call: Call = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if (
            not isinstance(self.name, str)
            or not self.name.strip()
            or self.name != self.name.strip()
            or len(self.name) > MAX_NAME
            or any(ord(c) < 32 for c in self.name)
        ):
            raise ToolDefinitionError(
                f"a prompt name is 1-{MAX_NAME} characters without control characters or surrounding "
                f"spaces, got {self.name!r}"
            )
        what = f"prompt {self.name!r}"
        params = read_params(self.fn, what)
        doc, described = summary(self.fn)
        arguments = tuple(PromptArgument(p.name, described.get(p.name), p.required) for p in params)
        object.__setattr__(self, "arguments", arguments)
        object.__setattr__(self, "_call", Call(self.fn, params, what, context_param=context_param(self.fn)))
        object.__setattr__(
            self, "complete", checked_completions(self.complete, [a.name for a in arguments], what)
        )
        if self.description is None:
            object.__setattr__(self, "description", doc)
        if not self.owner:
            object.__setattr__(self, "owner", owner_of(self.fn))

    def relabeled(self, *, owner: str) -> Prompt:
        """A copy that says who declared it."""
        return Prompt(
            self.fn,
            self.name,
            description=self.description,
            title=self.title,
            complete=self.complete,
            owner=owner,
        )

    async def render(
        self, arguments: Mapping[str, str] | None = None, context: ToolContext | None = None
    ) -> tuple[PromptMessage, ...]:
        """The messages of this prompt for `arguments`: an `ArgumentsError` for a required one
        missing or one it does not take, a `RenderError` when the function fails. A function with
        a `ToolContext` parameter gets `context` there (it may ask the client: `ctx.elicit`)."""
        given = dict(arguments or {})
        missing = tuple(a.name for a in self.arguments if a.required and a.name not in given)
        if missing:
            listed = ", ".join(repr(m) for m in missing)
            raise ArgumentsError(
                f"prompt {self.name!r} needs the argument{'s' if len(missing) > 1 else ''} {listed}",
                missing=missing,
            )
        unknown = sorted(set(given) - {a.name for a in self.arguments})
        if unknown:
            known = ", ".join(repr(a.name) for a in self.arguments) or "none"
            raise ArgumentsError(
                f"prompt {self.name!r} takes no argument {', '.join(repr(u) for u in unknown)}; "
                f"its arguments are: {known}"
            )
        return messages_of(await self._call(given, context), self.name)

    async def completions(self, argument: str, typed: str) -> tuple[list[str], int]:
        """Completion values of one argument for what was typed, and how many there are."""
        return await completions(
            self.complete.get(argument), typed, f"prompt {self.name!r} argument {argument!r}"
        )


def messages_of(value: object, name: str) -> tuple[PromptMessage, ...]:
    """What a prompt function returned, as messages; a RenderError naming what cannot be one."""
    items: Sequence[object] = value if isinstance(value, list | tuple) else (value,)
    out: list[PromptMessage] = []
    for i, item in enumerate(items):
        if isinstance(item, PromptMessage):
            out.append(item)
        elif isinstance(item, (str, *BLOCK_TYPES)):
            out.append(PromptMessage("user", item))
        else:
            at = f" item {i}" if isinstance(value, list | tuple) else ""
            raise RenderError(
                f"prompt {name!r} returned{at} a {type(item).__name__}; a prompt returns a str, a content "
                "block, a PromptMessage or a list of them"
            )
    return tuple(out)


@overload
def prompt(fn: Callable[..., Any], /) -> Prompt: ...
@overload
def prompt(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    title: str | None = None,
    complete: Mapping[str, Completion] | None = None,
) -> Callable[[Callable[..., Any]], Prompt]: ...


def prompt(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    title: str | None = None,
    complete: Mapping[str, Completion] | None = None,
) -> Prompt | Callable[[Callable[..., Any]], Prompt]:
    """Declare a prompt: bare (`@prompt`) or with options (`@prompt(name=..., complete=...)`).

    `complete` maps an argument to its completion values: a list, or a function (sync or async)
    of what the user typed so far that returns them.
    """

    def build(f: Callable[..., Any]) -> Prompt:
        found = name if name is not None else name_of(f)
        if found is None:
            raise ToolDefinitionError(f"@prompt: {f!r} has no usable name; pass name=...")
        return Prompt(f, found, description=description, title=title, complete=dict(complete or {}))

    return build(fn) if fn is not None else build


__all__ = ["Prompt", "PromptArgument", "PromptMessage", "Role", "messages_of", "prompt"]
