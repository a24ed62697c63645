"""Which agent framework an object's tool comes from, told without importing any framework.

An object is a LangChain, pydantic-ai or OpenAI Agents SDK tool when one of the classes it is an
instance of was defined in that framework's package: the names of the modules along its type's
MRO say so (a user's `class ReadFileTool(BaseTool)` counts, through `BaseTool`). Only then is the
converter for that framework imported, and the framework itself is already loaded: the object
exists. A deck of tooldeck's own tools never reaches this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from tooldeck.core import Tool

Framework = Literal["langchain", "pydantic_ai", "openai_agents"]

# (framework, the module that defines its tool base class, that class's name)
_BASES: tuple[tuple[Framework, str, str], ...] = (
    ("langchain", "langchain_core.tools.base", "BaseTool"),
    ("pydantic_ai", "pydantic_ai.tools", "Tool"),
    ("openai_agents", "agents.tool", "FunctionTool"),
)


def framework_of(value: object) -> Framework | None:
    """The framework whose tool class `value` is an instance of, or None."""
    for klass in type(value).__mro__:
        module = getattr(klass, "__module__", "")
        for framework, base_module, base_name in _BASES:
            if module == base_module and klass.__name__ == base_name:
                return framework
    return None


def foreign_tools(value: object, where: str) -> list[Tool] | None:
    """`value` as tooldeck tools when it is a framework's tool (one Tool), else None.

    A tool that cannot be brought in (a pydantic-ai tool that takes a `RunContext`, a LangChain
    tool with injected arguments, ...) is a `ToolDefinitionError` naming it and saying why.
    `where` names the value for messages (a config entry's `use:`, `Deck(tools=...)[2]`).
    """
    framework = framework_of(value)
    if framework is None:
        return None
    if framework == "langchain":
        from tooldeck.interop.langchain_in import from_langchain

        return [from_langchain(value, where=where)]
    if framework == "pydantic_ai":
        from tooldeck.interop.pydantic_ai_in import from_pydantic_ai

        return [from_pydantic_ai(value, where=where)]
    from tooldeck.interop.openai_agents_in import from_openai_agents

    return [from_openai_agents(value, where=where)]


def own_tools(given: Iterable[object], where: str = "Deck(tools=...)") -> list[Tool]:
    """`given` with other frameworks' tools made tooldeck Tools (anything else passes as it is,
    for the registry to refuse in its own words)."""
    out: list[Any] = []
    for index, value in enumerate(given):
        found = None if isinstance(value, Tool) else foreign_tools(value, f"{where}[{index}]")
        if found is None:
            out.append(value)
        else:
            out.extend(found)
    return out


__all__ = ["Framework", "foreign_tools", "framework_of", "own_tools"]
