"""`@resource`: a resource a team declares in Python, which `tooldeck serve` offers beside the
workspace's files.

    @resource("test://static-text", mime_type="text/plain")
    def static_text() -> str:
        "A fixed text."
        return "This is the content of the static text resource."

    @resource("test://template/{id}/data", mime_type="application/json")
    def data(id: int) -> str:
        "The data of one id."
        return json.dumps({"id": id})

The URI is fixed, or a template with `{name}` variables (RFC 6570 level 1: simple string
expansion; `{+x}`, `{?q}`, `{x*}` are refused). A template's function takes its variables as
parameters (converted as `declared.py` says; any other parameter needs a default); a fixed
resource's function takes none that are required. A variable matches one path segment (no `/`,
`?` or `#`), percent-decoded. The function, sync or async, returns a str (text), bytes (a blob),
an `EmbeddedResource` or a list of them (one content each). The name defaults to the function's,
the description to its docstring's summary; `complete={"id": [...] or fn}` gives completion
values for a template variable.

Nothing here knows MCP's wire form: serve maps a `DeclaredResource` to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from tooldeck._core.content import EmbeddedResource
from tooldeck._core.declared import (
    Call,
    Completion,
    checked_completions,
    completions,
    name_of,
    owner_of,
    read_params,
    summary,
)
from tooldeck.errors import RenderError, ToolDefinitionError

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, eq=False)
class DeclaredResource:
    """A declared resource or resource template (built by `@resource`); `read` calls its function."""

    fn: Callable[..., Any]
    # A fixed URI, or a template with `{name}` variables.
    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    title: str | None = None
    complete: Mapping[str, Completion] = field(default_factory=dict)
    # Who declared it, for conflict errors: "module:function", "config resources[0] (mod:attr)".
    owner: str = ""
    # The template's variables, in order (none for a fixed URI).
    variables: tuple[str, ...] = field(init=False)
    _pattern: re.Pattern[str] | None = field(init=False, repr=False)
    _call: Call = field(init=False, repr=False)

    def __post_init__(self) -> None:
        what = f"resource {self.uri!r}"
        variables, pattern = parse_uri(self.uri)
        if not isinstance(self.name, str) or not self.name.strip():
            raise ToolDefinitionError(f"{what}: a resource needs a name, got {self.name!r}")
        params = read_params(self.fn, what)
        names = {p.name for p in params}
        absent = [v for v in variables if v not in names]
        if absent:
            raise ToolDefinitionError(
                f"{what}: the function has no parameter {', '.join(repr(v) for v in absent)} for the "
                "template's variables"
            )
        unfilled = [p.name for p in params if p.required and p.name not in variables]
        if unfilled:
            raise ToolDefinitionError(
                f"{what}: parameter {', '.join(repr(n) for n in unfilled)} is not a variable of the URI "
                "and has no default, so nothing could fill it in"
            )
        doc, _ = summary(self.fn)
        object.__setattr__(self, "variables", variables)
        object.__setattr__(self, "_pattern", pattern)
        object.__setattr__(self, "_call", Call(self.fn, params, what))
        object.__setattr__(self, "complete", checked_completions(self.complete, variables, what))
        if self.description is None:
            object.__setattr__(self, "description", doc)
        if not self.owner:
            object.__setattr__(self, "owner", owner_of(self.fn))

    @property
    def is_template(self) -> bool:
        return self._pattern is not None

    def relabeled(self, *, owner: str) -> DeclaredResource:
        """A copy that says who declared it."""
        return DeclaredResource(
            self.fn,
            self.uri,
            self.name,
            description=self.description,
            mime_type=self.mime_type,
            title=self.title,
            complete=self.complete,
            owner=owner,
        )

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables' values when `uri` is this resource (or matches this template), else None."""
        if self._pattern is None:
            return {} if uri == self.uri else None
        found = self._pattern.fullmatch(uri)
        return {k: unquote(v) for k, v in found.groupdict().items()} if found is not None else None

    async def read(self, uri: str) -> tuple[EmbeddedResource, ...]:
        """The contents of `uri` (which must match, see `match`): a `RenderError` when the function
        fails, an `ArgumentsError` when a variable's value does not fit its parameter."""
        values = self.match(uri)
        if values is None:
            raise ValueError(f"{uri!r} is not resource {self.uri!r}")
        return contents_of(await self._call(values), uri, self)

    async def completions(self, variable: str, typed: str) -> tuple[list[str], int]:
        """Completion values of one template variable for what was typed, and how many there are."""
        return await completions(
            self.complete.get(variable), typed, f"resource {self.uri!r} variable {variable!r}"
        )


def contents_of(value: object, uri: str, declared: DeclaredResource) -> tuple[EmbeddedResource, ...]:
    """What a resource function returned, as contents; a RenderError naming what cannot be one."""
    items: Sequence[object] = value if isinstance(value, list | tuple) else (value,)
    out: list[EmbeddedResource] = []
    for item in items:
        if isinstance(item, str):
            out.append(EmbeddedResource(uri, declared.mime_type or "text/plain", text=item))
        elif isinstance(item, bytes | bytearray | memoryview):
            out.append(
                EmbeddedResource(uri, declared.mime_type or "application/octet-stream", blob=bytes(item))
            )
        elif isinstance(item, EmbeddedResource):
            if item.mime_type is None and declared.mime_type is not None:
                item = EmbeddedResource(item.uri, declared.mime_type, text=item.text, blob=item.blob)
            out.append(item)
        else:
            raise RenderError(
                f"resource {declared.uri!r} returned a {type(item).__name__}; a resource returns a str "
                "(text), bytes (a blob), an EmbeddedResource or a list of them"
            )
    if not out:
        raise RenderError(f"resource {declared.uri!r} returned no contents")
    return tuple(out)


def parse_uri(uri: str) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """The variables of a fixed URI or a level-1 URI template, and the pattern that matches its
    URIs (None for a fixed one); a ToolDefinitionError saying what is wrong with it."""
    what = f"resource {uri!r}"
    if not isinstance(uri, str) or not _SCHEME.fullmatch(uri):
        raise ToolDefinitionError(f"{what}: a resource URI starts with a scheme (`test://...`), no spaces")
    variables: list[str] = []
    regex: list[str] = []
    last = 0
    for found in _EXPRESSION.finditer(uri):
        name = found.group(1)
        if not _VARIABLE.fullmatch(name):
            raise ToolDefinitionError(
                f"{what}: {{{name}}} is not a simple variable; templates take `{{name}}` only "
                "(RFC 6570 level 1: no operators such as + ? # or modifiers such as *)"
            )
        if name in variables:
            raise ToolDefinitionError(f"{what}: the variable {name!r} appears twice")
        literal = uri[last : found.start()]
        _check_literal(literal, what)
        regex += [re.escape(literal), f"(?P<{name}>[^/?#]+)"]
        variables.append(name)
        last = found.end()
    _check_literal(uri[last:], what)
    if not variables:
        return (), None
    regex.append(re.escape(uri[last:]))
    return tuple(variables), re.compile("".join(regex))


def _check_literal(text: str, what: str) -> None:
    if "{" in text or "}" in text:
        raise ToolDefinitionError(f"{what}: an unmatched brace; a template variable is written `{{name}}`")


def resource(
    uri: str,
    /,
    *,
    name: str | None = None,
    mime_type: str | None = None,
    description: str | None = None,
    title: str | None = None,
    complete: Mapping[str, Completion] | None = None,
) -> Callable[[Callable[..., Any]], DeclaredResource]:
    """Declare a resource at a fixed URI, or a template of them: `@resource("test://x/{id}")`.

    `complete` maps a template variable to its completion values: a list, or a function (sync or
    async) of what the user typed so far that returns them.
    """
    if not isinstance(uri, str):  # a bare `@resource` over a function
        raise ToolDefinitionError("@resource needs the URI first: @resource('scheme://...')")
    parse_uri(uri)  # a bad URI is refused where it is written, before any function

    def build(f: Callable[..., Any]) -> DeclaredResource:
        found = name if name is not None else name_of(f)
        if found is None:
            raise ToolDefinitionError(f"@resource({uri!r}): {f!r} has no usable name; pass name=...")
        return DeclaredResource(
            f,
            uri,
            found,
            description=description,
            mime_type=mime_type,
            title=title,
            complete=dict(complete or {}),
        )

    return build


__all__ = ["DeclaredResource", "contents_of", "parse_uri", "resource"]
