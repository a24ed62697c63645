"""Small builders shared by the execution tests."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from tooldeck import parse_config
from tooldeck._core.assembly.loadout import Fate, Loadout
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck._core.tool import Tool


def loadout(
    *exposed: Tool,
    deferred: Sequence[Tool] = (),
    hidden: Sequence[tuple[Tool, str, str]] = (),
    execution: Mapping[str, Any] | None = None,
    approvals: str = "ask",
    skills_allowed: frozenset[str] | None = None,
    home: str | None = None,
    workspace: Any = None,
) -> Loadout:
    """A loadout as the assembler would produce it (exposed / deferred / hidden with gate + reason),
    under a config with the given `execution` keys and `approvals.mode`."""
    data: dict[str, Any] = {
        "execution": dict(execution or {}),
        "approvals": {"mode": approvals},
        "home": home or _HOME,
    }
    if workspace is not None:
        data["sandbox"] = {"workspace": str(workspace)}
    config = parse_config(data)
    return Loadout(
        platform="test",
        exposed=tuple(exposed),
        deferred=tuple(deferred),
        hidden=tuple(Fate(t, "hidden", gate, reason) for t, gate, reason in hidden),
        descriptions={t.name: str(t.description) for t in (*exposed, *deferred)},
        reasons={},
        config=config,
        skills_allowed=skills_allowed,
    )


# Spilled results of these tests go to a private temporary home.
_HOME = tempfile.mkdtemp(prefix="tooldeck-exec-home-")


def call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    return ToolCall(id or f"id-{name}", name, arguments)


def run(ex: Executor, calls: Sequence[ToolCall], **kwargs: Any) -> list[ToolResult]:
    return asyncio.run(ex.execute(calls, **kwargs))


def one(ex: Executor, name: str, arguments: Any = None) -> ToolResult:
    [result] = run(ex, [call(name, arguments)])
    return result
