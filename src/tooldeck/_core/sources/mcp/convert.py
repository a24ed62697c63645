"""From MCP to the deck and back: server tools as deck Tools, call results as the text the model reads.

A server tool's annotations become the tool's behaviour hints, and the hints drive the rest of
the deck without it knowing about MCP: a destructive tool needs approval (unless the server is
configured otherwise), a read-only tool runs alongside anything, and the others of one server
take turns in a batch unless the server is `parallel_safe`. Servers' hints are believed as
given: a tool that says nothing is not assumed destructive (`approval: always` is there for
servers one does not trust).

Results: text blocks are kept as they are; images, audio and binary resources are saved as
files (their place is named in the text); embedded text resources and resource links are shown
with their URI; `structuredContent` is added as JSON unless a text block already carries it; a
result flagged `isError` becomes a `tool_error`.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import re
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck._core.content import ContentBlock, TextContent
from tooldeck._core.content import from_mcp as content_from_mcp
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.output import ToolOutput
from tooldeck._core.sources.mcp.naming import deck_names
from tooldeck._core.sources.mcp.settings import ServerSpec
from tooldeck._core.tool import MCP_EXAMPLES_KEY, Resource, Tool
from tooldeck._utils.text import json_dumps
from tooldeck.errors import ToolDefinitionError, ToolError

if TYPE_CHECKING:
    import mcp_types

Check = Callable[[], Any]
HandlerFactory = Callable[[str], Callable[..., Any]]
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_SHOWN = 8  # server tool names listed when a pattern matches none of them
_TEMPLATE = re.compile(r"\{\{(?=if\b|end\}\})")


def deck_tools(
    spec: ServerSpec, server_tools: list[mcp_types.Tool], *, check: Check, handler: HandlerFactory
) -> tuple[list[Tool], list[Diagnostic]]:
    """The server's tools as deck Tools (those the config lets through), and what was skipped."""
    wanted = [t for t in server_tools if spec.wants(t.name)]
    names = deck_names(spec.name, [t.name for t in wanted])
    tools: list[Tool] = []
    notes: list[Diagnostic] = []
    for item in wanted:
        try:
            tools.append(_with_examples(spec, item, names[item.name], check, handler(item.name), notes))
        except ToolDefinitionError as exc:
            notes.append(
                Diagnostic(
                    "warning", f"MCP server {spec.name!r}: tool {item.name!r} skipped: {exc}", _path(spec)
                )
            )
    return tools, notes + unmatched_patterns(spec, [t.name for t in server_tools])


def unmatched_patterns(spec: ServerSpec, server_tools: list[str]) -> list[Diagnostic]:
    """A warning for each `include_tools` / `exclude_tools` pattern that matches none of the
    server's tools, naming a few of them. `strict: true` leaves it a warning: what a server lists
    can change while the deck runs (an upgrade, a tool switched off), as its connection can."""
    shown = ", ".join(sorted(server_tools)[:_SHOWN]) or "none"
    if len(server_tools) > _SHOWN:
        shown += f", … ({len(server_tools)} in all)"
    return [
        Diagnostic(
            "warning",
            f"pattern {pattern!r} matches none of MCP server {spec.name!r}'s tools (it has: {shown})",
            f"{_path(spec)}.{key}",
        )
        for key, pattern in spec.unmatched(server_tools)
    ]


def _with_examples(
    spec: ServerSpec, item: mcp_types.Tool, name: str, check: Check, handler: Any, notes: list[Diagnostic]
) -> Tool:
    """The deck tool with the example arguments the server gives in `_meta` (`MCP_EXAMPLES_KEY`);
    examples its own schema refuses are left out, with a warning, and the tool kept."""
    examples = (item.meta or {}).get(MCP_EXAMPLES_KEY)
    if not examples:
        return _deck_tool(spec, item, name, check, handler)
    try:
        return _deck_tool(spec, item, name, check, handler, examples)
    except ToolDefinitionError as exc:
        tool = _deck_tool(spec, item, name, check, handler)
        notes.append(
            Diagnostic(
                "warning",
                f"MCP server {spec.name!r}: tool {item.name!r}: its _meta.{MCP_EXAMPLES_KEY} left out: {exc}",
                _path(spec),
            )
        )
        return tool


def _deck_tool(
    spec: ServerSpec, item: mcp_types.Tool, name: str, check: Check, handler: Any, examples: Any = ()
) -> Tool:
    ann = item.annotations
    read_only = ann.read_only_hint if ann is not None else None
    destructive = (ann.destructive_hint if ann is not None else None) if not read_only else False
    # `approval: always` asks for every call; `never` lets the server's tools run unasked (their
    # destructive hint still shows); `destructive` leaves it to the hint (destructive tools ask).
    needs_approval = spec.approval == "always"
    title = item.title or (ann.title if ann is not None else None)
    description = item.description or title or f"{item.name} (from MCP server {spec.name})"
    return Tool(
        name=name,
        # A server's text is not one of our description templates: defuse anything that looks like one.
        description=_TEMPLATE.sub("{ {", description),
        parameters=_schema(item.input_schema),
        handler=handler,
        toolset=f"mcp-{spec.name}",
        check=check,
        read_only=read_only,
        destructive=destructive,
        idempotent=ann.idempotent_hint if ann is not None else None,
        open_world=ann.open_world_hint if ann is not None else None,
        requires_approval=needs_approval,
        approval="allow" if spec.approval == "never" else None,
        timeout=spec.timeout,
        resource=None if read_only or spec.parallel_safe else Resource(key=f"mcp:{spec.name}"),
        owner=f"MCP server {spec.name}",
        source="mcp",
        context_param="context",
        meta={"mcp_server": spec.name, "mcp_tool": item.name},
        # The server's outputSchema: its structured results are checked against it, as the MCP
        # spec asks of clients (one that is not an object's is not one MCP allows: not used).
        output_schema=_output_schema(item.output_schema),
        input_examples=examples,
    )


def _output_schema(schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if isinstance(schema, Mapping) and schema.get("type") == "object":
        return dict(schema)
    return None


def _schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A server's input schema as a tool's parameters: an object schema, whatever was sent."""
    out = dict(schema or {})
    out.setdefault("type", "object")
    if not isinstance(out.get("properties", {}), Mapping):
        out["properties"] = {}
    out.setdefault("properties", {})
    return out


def _path(spec: ServerSpec) -> str:
    return f"mcp_servers.{spec.name}"


def call_output(
    result: mcp_types.CallToolResult,
    *,
    files: Path | None,
    call_id: str,
    rewrite: Callable[[str], str] | None = None,
) -> str | ToolOutput:
    """A call result as the tool's value: its text, and - when it has more than text - its
    content blocks unchanged and its structured content (passed on to `serve`'s clients, to
    models that read images, to `call --json`). Raises ToolError for a result flagged as an error."""
    text = result_text(result, files=files, call_id=call_id, rewrite=rewrite)
    plain = all(getattr(b, "type", None) == "text" for b in result.content)
    if plain and result.structured_content is None:
        return text
    blocks: list[ContentBlock] = []
    for block in result.content:
        try:
            converted = content_from_mcp(block.model_dump(mode="json", by_alias=True, exclude_none=True))
        except ValueError:
            continue  # not valid (bad base64, no uri): the text says so
        if isinstance(converted, TextContent) and rewrite is not None:
            converted = TextContent(rewrite(converted.text))
        blocks.append(converted)
    structured = result.structured_content if isinstance(result.structured_content, dict) else None
    return ToolOutput(text, blocks=tuple(blocks) if not plain else (), structured=structured)


def result_text(
    result: mcp_types.CallToolResult,
    *,
    files: Path | None,
    call_id: str,
    rewrite: Callable[[str], str] | None = None,
) -> str:
    """The model-facing text of a call result; raises ToolError for a result flagged as an error.

    Files saved from it are named after `call_id`, made unique (ids repeat across runs).
    """
    from mcp_types import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent

    parts: list[str] = []
    texts: list[str] = []
    unique = ""
    for i, block in enumerate(result.content):
        if isinstance(block, TextContent):
            texts.append(block.text)
            parts.append(block.text)
            continue
        # Only a result with more than text saves files: the random part is drawn then.
        unique = unique or f"{call_id}-{secrets.token_hex(4)}"
        if isinstance(block, ImageContent | AudioContent):
            parts.append(_binary(block.type, block.data, block.mime_type, files, f"{unique}-{i}"))
        elif isinstance(block, EmbeddedResource):
            parts.append(_resource(block.resource, files, f"{unique}-{i}"))
        elif isinstance(block, ResourceLink):
            about = f": {block.description}" if block.description else ""
            mime = f" ({block.mime_type})" if block.mime_type else ""
            parts.append(f"[resource link {block.name} <{block.uri}>{mime}{about}]")
        else:
            parts.append(f"[{type(block).__name__} content not shown]")
    structured = result.structured_content
    if structured is not None and not any(_same_json(t, structured) for t in texts):
        parts.append("structured result:\n" + json_dumps(structured, ensure_ascii=False, indent=2))
    text = "\n".join(parts)
    if rewrite is not None:
        text = rewrite(text)
    if result.is_error:
        raise ToolError(text or "the tool reported an error and gave no message", retryable=True)
    return text


def _resource(resource: Any, files: Path | None, stem: str) -> str:
    mime = getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if text is not None:
        return f"[resource <{resource.uri}>{f' ({mime})' if mime else ''}]\n{text}"
    return _binary("resource", resource.blob, mime, files, stem, uri=resource.uri)


def _binary(kind: str, data: str, mime: str | None, files: Path | None, stem: str, uri: str = "") -> str:
    label = f"{kind} <{uri}>" if uri else kind
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"[{label} ({mime or 'unknown type'}): data is not valid base64, not shown]"
    where = ""
    if files is not None:
        ext = mimetypes.guess_extension(mime or "") or ".bin"
        target = files / f"{_SAFE.sub('_', stem)}{ext}"
        try:
            files.mkdir(parents=True, exist_ok=True)
            target.write_bytes(raw)
            where = f", saved as {target}"
        except OSError as exc:
            where = f", could not be saved ({exc.strerror or exc})"
    return f"[{label} ({mime or 'unknown type'}), {len(raw)} bytes{where}]"


def _same_json(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


def path_rewriter(root: Path, virtual: str = "/workspace") -> Callable[[str], str]:
    """Replace local paths under `root` in text by the same path under `virtual`."""
    roots = sorted({str(root), str(root.resolve())}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(r) for r in roots) + r"(?=$|[/\s'\"`)\]}>,;:])")

    def rewrite(text: str) -> str:
        return pattern.sub(virtual, text)

    return rewrite
