"""The prompts and resources a deck declares (`@prompt`, `@resource`; `Deck(prompts=...,
resources=...)` and config `prompts:` / `resources:`) in MCP's wire form.

`prompts.py` lists them before the skills and `resources.py` before the workspace's files; this
module maps them. A declared prompt's messages keep their content blocks; a resource's contents
are text, or base64 blobs. What goes wrong is a JSON-RPC error, never a traceback: arguments a
prompt or a template cannot take (a required one missing, one it does not declare, a value of
the wrong type) are `-32602` naming them, a function that raised or returned what cannot be
served is `-32603` with a message naming the declaration and the exception (the traceback goes
to the server's log).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck.core import DeclaredResource, EmbeddedResource, Prompt, ToolContext, content_to_mcp
from tooldeck.errors import ArgumentsError, RenderError

if TYPE_CHECKING:
    import mcp_types

log = logging.getLogger(__name__)

T = TypeVar("T")


async def answered(pending: Awaitable[T], data: Mapping[str, Any]) -> T:
    """What `pending` (a declared function's work) gives, its failures as JSON-RPC errors."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

    try:
        return await pending
    except ArgumentsError as exc:
        extra = {"missing": list(exc.missing)} if exc.missing else {}
        raise MCPError(INVALID_PARAMS, str(exc), data={**data, **extra}) from None
    except RenderError as exc:
        log.warning("%s", exc, exc_info=exc.__cause__ or exc)
        raise MCPError(INTERNAL_ERROR, str(exc), data=dict(data)) from None


# -- prompts --------------------------------------------------------------------------------------


def mcp_prompt(declared: Prompt) -> mcp_types.Prompt:
    import mcp_types

    arguments = [
        mcp_types.PromptArgument(name=a.name, description=a.description, required=a.required)
        for a in declared.arguments
    ]
    return mcp_types.Prompt(
        name=declared.name,
        title=declared.title,
        description=declared.description,
        arguments=arguments or None,
    )


async def prompt_result(
    declared: Prompt, arguments: Mapping[str, str] | None, context: ToolContext | None = None
) -> mcp_types.GetPromptResult:
    import mcp_types

    rendered = await answered(declared.render(arguments, context), {"prompt": declared.name})
    messages = [
        mcp_types.PromptMessage.model_validate({"role": m.role, "content": content_to_mcp(m.block)})
        for m in rendered
    ]
    return mcp_types.GetPromptResult(description=declared.description, messages=messages)


# -- resources ------------------------------------------------------------------------------------


def find_declared(declared: Sequence[DeclaredResource], uri: str) -> DeclaredResource | None:
    """The declared resource `uri` names: a fixed one first, else the first template it matches."""
    fixed = next((r for r in declared if not r.is_template and r.uri == uri), None)
    if fixed is not None:
        return fixed
    return next((r for r in declared if r.is_template and r.match(uri) is not None), None)


def mcp_resources(declared: Iterable[DeclaredResource]) -> list[mcp_types.Resource]:
    import mcp_types

    return [
        mcp_types.Resource(
            uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type
        )
        for r in declared
        if not r.is_template
    ]


def mcp_templates(declared: Iterable[DeclaredResource]) -> list[mcp_types.ResourceTemplate]:
    import mcp_types

    return [
        mcp_types.ResourceTemplate(
            uri_template=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type
        )
        for r in declared
        if r.is_template
    ]


async def read_declared(declared: DeclaredResource, uri: str) -> mcp_types.ReadResourceResult:
    import mcp_types

    found = await answered(declared.read(uri), {"uri": uri})
    return mcp_types.ReadResourceResult(contents=[_contents(c) for c in found])


def _contents(
    block: EmbeddedResource,
) -> mcp_types.TextResourceContents | mcp_types.BlobResourceContents:
    import mcp_types

    if block.text is not None:
        return mcp_types.TextResourceContents(uri=block.uri, mime_type=block.mime_type, text=block.text)
    blob = base64.b64encode(block.blob or b"").decode("ascii")
    return mcp_types.BlobResourceContents(uri=block.uri, mime_type=block.mime_type, blob=blob)


# -- completion -----------------------------------------------------------------------------------


async def complete_with(
    pending: Awaitable[tuple[list[str], int]], data: Mapping[str, Any]
) -> mcp_types.CompleteResult:
    import mcp_types

    values, total = await answered(pending, data)
    return mcp_types.CompleteResult(
        completion=mcp_types.Completion(values=values, total=total, has_more=total > len(values))
    )
