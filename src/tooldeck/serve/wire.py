"""tooldeck's tools and results in MCP's shapes, and what a client has to see to notice a change.

Tool hints become MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
`openWorldHint`; a hint left unset stays unset), and a tool's output schema its `outputSchema`.
A result is its content blocks (text, images, audio, resources, resource links) or, when it has
none, one text block; structured results go as `structuredContent` beside their JSON text. A
failed call is `isError: true` with the error envelope as its text, exactly what a model reads
from tooldeck.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tooldeck.core import MCP_EXAMPLES_KEY, Loadout, Tool, ToolResult, content_to_mcp, deferred_listing

if TYPE_CHECKING:
    import mcp_types

# What a listing looks like to a client: when it differs from the last one, clients are told.
Signature = tuple[tuple[str, str, str, str], ...]


def tool_annotations(tool: Tool) -> mcp_types.ToolAnnotations | None:
    import mcp_types

    hints = (tool.read_only, tool.destructive, tool.idempotent, tool.open_world)
    if all(h is None for h in hints):
        return None
    return mcp_types.ToolAnnotations(
        read_only_hint=tool.read_only,
        destructive_hint=tool.destructive,
        idempotent_hint=tool.idempotent,
        open_world_hint=tool.open_world,
    )


def served_description(loadout: Loadout, tool: Tool, listing: str | None) -> str:
    """The description a client reads; `tool_search` names the deferred tools (`listing`: MCP
    has no system prompt to list them in)."""
    text = loadout.description(tool.name)
    return f"{text}\n\n{listing}" if tool.loads_deferred and listing else text


def mcp_tools(loadout: Loadout) -> list[mcp_types.Tool]:
    """The exposed tools as MCP tools (built once per loadout; each call gets its own list)."""

    listing = deferred_listing(loadout)  # outside `build`: the render cache's lock is not re-entrant

    def build() -> tuple[mcp_types.Tool, ...]:
        import mcp_types

        return tuple(
            mcp_types.Tool(
                name=tool.name,
                description=served_description(loadout, tool, listing),
                input_schema=dict(tool.parameters),
                output_schema=dict(tool.output_schema) if tool.output_schema else None,
                annotations=tool_annotations(tool),
                # Example arguments go in `_meta`, for the client to give its model as it can.
                _meta={MCP_EXAMPLES_KEY: list(tool.input_examples)} if tool.input_examples else None,
            )
            for tool in loadout.exposed
        )

    built: tuple[mcp_types.Tool, ...] = loadout.cached_render(("tooldeck.serve.mcp_tools",), build)
    return list(built)


def signature(loadout: Loadout) -> Signature:
    """Names, descriptions, schemas and hints of the exposed tools: what a client's list shows."""

    listing = deferred_listing(loadout)

    def build() -> Signature:
        return tuple(
            (
                tool.name,
                served_description(loadout, tool, listing),
                json.dumps(
                    [tool.parameters, tool.output_schema, tool.input_examples], sort_keys=True, default=str
                ),
                repr((tool.read_only, tool.destructive, tool.idempotent, tool.open_world)),
            )
            for tool in loadout.exposed
        )

    found: Signature = loadout.cached_render(("tooldeck.serve.signature",), build)
    return found


def call_result(result: ToolResult) -> mcp_types.CallToolResult:
    import mcp_types

    failed = result.error is not None
    if failed or not result.blocks:
        content: list[dict[str, Any]] = [{"type": "text", "text": result.content}]
    else:
        content = [content_to_mcp(block) for block in result.blocks]
    data: dict[str, Any] = {"content": content, "isError": failed}
    if not failed and result.structured is not None:
        data["structuredContent"] = dict(result.structured)
    return mcp_types.CallToolResult.model_validate(data)


def arguments_text(arguments: Any, limit: int = 600) -> str:
    """Arguments as a person reads them in an approval question (cut when long)."""
    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
