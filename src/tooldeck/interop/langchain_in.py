"""A LangChain `BaseTool` as a tooldeck tool (`@tool`, `StructuredTool.from_function`, subclasses).

The tool keeps its own name and description, and its parameters are the JSON schema LangChain
itself sends a model (`convert_to_openai_tool`): types, descriptions, enums, defaults and bounds
as LangChain gives them. tooldeck validates each call against that schema first (coercing "2" to
2 where the schema says integer), then runs the tool with `ainvoke` when it has an async
implementation (awaited on the event loop) and `invoke` otherwise (on a worker thread, under the
call's timeout). What the tool raises is the call's `tool_error`; what its own
`handle_tool_error` turns into text is its result, as in LangChain.

A tool with arguments LangChain injects at run time (`InjectedToolArg`, `InjectedToolCallId`,
`ToolRuntime`, `InjectedState`) is refused: no tooldeck call can supply them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from tooldeck.core import Tool
from tooldeck.errors import ToolDefinitionError


def from_langchain(lc_tool: object, *, where: str) -> Tool:
    """`lc_tool` as a tooldeck Tool (see the module docstring); a ToolDefinitionError says why not."""
    if not isinstance(lc_tool, BaseTool):
        raise ToolDefinitionError(f"{where}: {type(lc_tool).__name__} is not a LangChain BaseTool")
    try:
        spec = convert_to_openai_tool(lc_tool)["function"]
    except Exception as exc:  # boundary: LangChain builds the schema from user code
        raise ToolDefinitionError(
            f"{where}: cannot read the schema of LangChain tool {lc_tool.name!r}: {type(exc).__name__}: {exc}"
        ) from None
    injected = sorted(getattr(lc_tool, "_injected_args_keys", frozenset()))
    if injected:
        raise ToolDefinitionError(
            f"{where}: LangChain tool {lc_tool.name!r} takes arguments LangChain injects at run "
            f"time ({', '.join(injected)}), which a tooldeck call cannot supply; wrap it in a tool "
            "without them"
        )
    parameters = spec.get("parameters") or {"type": "object", "properties": {}}
    return Tool(
        name=spec["name"],
        description=spec.get("description") or "",
        parameters=parameters,
        handler=_handler(lc_tool),
        owner=f"langchain {type(lc_tool).__name__} {lc_tool.name!r}",
        meta={"framework": "langchain", "return_direct": lc_tool.return_direct},
    )


def _handler(lc_tool: BaseTool) -> Callable[[Mapping[str, Any]], Any]:
    if _runs_async(lc_tool):

        async def run_async(arguments: Mapping[str, Any]) -> Any:
            return await lc_tool.ainvoke(dict(arguments))

        return run_async

    def run(arguments: Mapping[str, Any]) -> Any:
        return lc_tool.invoke(dict(arguments))

    return run


def _runs_async(lc_tool: BaseTool) -> bool:
    """Whether the tool has an async implementation of its own (else `ainvoke` would only run
    the sync one on LangChain's executor, out of reach of tooldeck's timeout): a function tool's
    coroutine, or a subclass's own `_arun`."""
    if isinstance(lc_tool, StructuredTool) or "coroutine" in type(lc_tool).model_fields:
        return getattr(lc_tool, "coroutine", None) is not None
    return type(lc_tool)._arun is not BaseTool._arun


__all__ = ["from_langchain"]
