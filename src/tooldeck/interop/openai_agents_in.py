"""An OpenAI Agents SDK `FunctionTool` (`@function_tool`, or built by hand) as a tooldeck tool.

The tool keeps its name, description and `params_json_schema` (strict or not, as the SDK made
it). tooldeck validates each call against that schema, then hands the arguments, as the JSON
text the SDK's own runner would, to the tool's `on_invoke_tool` with a `ToolContext` naming the
call (its `context` is None: there is no SDK run). What the tool raises is the call's
`tool_error`; what its failure function turns into text (the SDK's default one does) is its
result, as in the SDK. `needs_approval` (a flag or a function) and `timeout_seconds` become
tooldeck's `requires_approval` and `timeout`: approvals are tooldeck's, asked of tooldeck's
approver, failing closed.

A tool the SDK enables per run (`is_enabled` a function of the run context and agent), or with
tool guardrails (run by the SDK's runner around `on_invoke_tool`, not by the tool), is refused:
tooldeck would call it without them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext as AgentsToolContext

from tooldeck.core import Tool, ToolContext
from tooldeck.errors import ToolDefinitionError


def from_openai_agents(fn_tool: object, *, where: str) -> Tool:
    """`fn_tool` as a tooldeck Tool (see the module docstring); a ToolDefinitionError says why not."""
    if not isinstance(fn_tool, FunctionTool):
        raise ToolDefinitionError(f"{where}: {type(fn_tool).__name__} is not an OpenAI Agents FunctionTool")
    why_not = (
        "it is enabled by a function of the SDK's run context and agent (is_enabled)"
        if callable(fn_tool.is_enabled)
        else "its tool guardrails run only inside the SDK's Runner"
        if fn_tool.tool_input_guardrails or fn_tool.tool_output_guardrails
        else "it is disabled (is_enabled=False)"
        if fn_tool.is_enabled is False
        else None
    )
    if why_not is not None:
        raise ToolDefinitionError(
            f"{where}: OpenAI Agents tool {fn_tool.name!r} cannot be brought in: {why_not}"
        )
    return Tool(
        name=fn_tool.name,
        description=fn_tool.description or "",
        parameters=dict(fn_tool.params_json_schema),
        handler=_handler(fn_tool),
        context_param="ctx",
        requires_approval=fn_tool.needs_approval is not False,
        timeout=fn_tool.timeout_seconds,
        owner=f"openai-agents FunctionTool {fn_tool.name!r}",
        meta={"framework": "openai_agents"},
    )


def _handler(fn_tool: FunctionTool) -> Any:
    async def run(arguments: Mapping[str, Any], ctx: ToolContext | None = None) -> Any:
        text = json.dumps(dict(arguments), ensure_ascii=False)
        call_id = ctx.call_id if ctx is not None and ctx.call_id else f"tooldeck-{fn_tool.name}"
        context = AgentsToolContext(
            context=None, tool_name=fn_tool.name, tool_call_id=call_id, tool_arguments=text
        )
        return await fn_tool.on_invoke_tool(context, text)

    return run


__all__ = ["from_openai_agents"]
