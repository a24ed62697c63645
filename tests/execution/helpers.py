"""Small builders shared by the execution tests."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from tooldeck.assembly.loadout import Fate, Loadout
from tooldeck.execution.executor import Executor
from tooldeck.execution.types import ToolCall, ToolResult
from tooldeck.tool import Tool


def loadout(
    *exposed: Tool,
    deferred: Sequence[Tool] = (),
    hidden: Sequence[tuple[Tool, str, str]] = (),
    settings: Mapping[str, Any] | None = None,
) -> Loadout:
    """A loadout as the assembler would produce it (exposed / deferred / hidden with gate + reason)."""
    return Loadout(
        platform="test",
        exposed=tuple(exposed),
        deferred=tuple(deferred),
        hidden=tuple(Fate(t, "hidden", gate, reason) for t, gate, reason in hidden),
        descriptions={t.name: str(t.description) for t in (*exposed, *deferred)},
        reasons={},
        settings=dict(settings or {}),
    )


def call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    return ToolCall(id or f"id-{name}", name, arguments)


def run(ex: Executor, calls: Sequence[ToolCall], **kwargs: Any) -> list[ToolResult]:
    return asyncio.run(ex.execute(calls, **kwargs))


def one(ex: Executor, name: str, arguments: Any = None) -> ToolResult:
    [result] = run(ex, [call(name, arguments)])
    return result
