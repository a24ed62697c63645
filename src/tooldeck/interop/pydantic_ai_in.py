"""A pydantic-ai `Tool` over a plain function as a tooldeck tool.

The tool keeps its name, description and the JSON schema pydantic-ai built from the function
(types, descriptions from the docstring, enums, defaults, bounds). tooldeck validates each call
against that schema, then pydantic-ai's own validator turns the arguments into the function's
Python values (models, dates, ...), and the function runs: awaited when async, on a worker thread
under the call's timeout when not. `requires_approval`, `sequential`, `timeout` and
`defer_loading` become tooldeck's options of those meanings, so approvals are tooldeck's.

A tool whose function takes a `RunContext`, or that has a `prepare` or `args_validator` function
(both take one), is refused: a tooldeck call is not a step of a pydantic-ai agent run, and there
is no run context to give it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_ai import Tool as PydanticTool

from tooldeck.core import Tool
from tooldeck.errors import ToolDefinitionError, ToolError


def from_pydantic_ai(pa_tool: object, *, where: str) -> Tool:
    """`pa_tool` as a tooldeck Tool (see the module docstring); a ToolDefinitionError says why not."""
    if not isinstance(pa_tool, PydanticTool):
        raise ToolDefinitionError(f"{where}: {type(pa_tool).__name__} is not a pydantic-ai Tool")
    needs_context = (
        "its function takes a RunContext"
        if pa_tool.takes_ctx
        else "its prepare function takes a RunContext"
        if pa_tool.prepare is not None
        else "its args_validator takes a RunContext"
        if pa_tool.args_validator is not None
        else None
    )
    if needs_context is not None:
        raise ToolDefinitionError(
            f"{where}: pydantic-ai tool {pa_tool.name!r} needs a run context ({needs_context}), "
            "which only a pydantic-ai agent run has; give tooldeck a tool whose function takes "
            "its arguments alone"
        )
    schema = pa_tool.function_schema
    return Tool(
        name=pa_tool.name,
        description=pa_tool.description or "",
        parameters=dict(schema.json_schema),
        handler=_handler(pa_tool),
        sequential=pa_tool.sequential,
        requires_approval=pa_tool.requires_approval,
        timeout=pa_tool.timeout,
        defer=True if pa_tool.defer_loading else None,
        owner=f"pydantic-ai Tool {pa_tool.name!r}",
        meta={"framework": "pydantic_ai"},
    )


def _handler(pa_tool: PydanticTool[Any]) -> Any:
    schema = pa_tool.function_schema

    def prepare(arguments: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        try:
            values: dict[str, Any] = dict(schema.validator.validate_python(dict(arguments)))
        except ValidationError as exc:
            raise ToolError(
                f"invalid arguments for {pa_tool.name!r}: {exc}", type="invalid_arguments", retryable=True
            ) from None
        args = [values.pop(name) for name in schema.positional_fields]
        if schema.var_positional_field:
            args.extend(values.pop(schema.var_positional_field))
        return args, values

    function = schema.function
    if schema.is_async:

        async def run_async(arguments: Mapping[str, Any]) -> Any:
            args, kwargs = prepare(arguments)
            return await function(*args, **kwargs)

        return run_async

    def run(arguments: Mapping[str, Any]) -> Any:
        args, kwargs = prepare(arguments)
        value = function(*args, **kwargs)
        if inspect.iscoroutine(value):  # a plain `def` returning a coroutine: not run on this thread
            value.close()
            raise ToolError(
                f"tool {pa_tool.name!r} returned a coroutine from a plain function; make it async"
            )
        return value

    return run


__all__ = ["from_pydantic_ai"]
