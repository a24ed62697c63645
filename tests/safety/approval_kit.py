"""Builders for the approval tests: a loadout over a private home and workspace, recording tools."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooldeck import Tool, parse_config
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest
from tooldeck._core.execution.types import ToolCall, ToolResult


@dataclass
class Recorder:
    """A tool's handler that remembers what it ran."""

    ran: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, arguments: dict[str, Any]) -> str:
        self.ran.append(arguments)
        return "ran"


def shell_tool(name: str = "run", *, recorder: Recorder | None = None, param: str = "command") -> Tool:
    """A stand-in shell tool: the policy analyses its `command` (or `code`) argument."""
    return Tool(
        name=name,
        description="Run a command (a stand-in that only records it).",
        parameters={"type": "object", "properties": {param: {"type": "string"}}},
        handler=recorder or Recorder(),
        shell=True,
    )


def plain_tool(name: str, *, recorder: Recorder | None = None, **options: Any) -> Tool:
    return Tool(
        name=name,
        description="A tool.",
        parameters={"type": "object", "properties": {"x": {"type": "string"}}},
        handler=recorder or Recorder(),
        **options,
    )


def loadout(root: Path, *tools: Tool, **sections: Any) -> Loadout:
    """A loadout exposing `tools`, under a config with a private home and workspace in `root`."""
    (root / "ws").mkdir(exist_ok=True)
    data: dict[str, Any] = {"home": str(root / "home"), "sandbox": {"workspace": str(root / "ws")}}
    data.update(sections)
    config = parse_config(data)
    return Loadout(
        platform="test",
        exposed=tuple(tools),
        deferred=(),
        hidden=(),
        descriptions={t.name: str(t.description) for t in tools},
        reasons={},
        config=config,
    )


def run(ex: Executor, name: str, arguments: dict[str, Any], call_id: str = "c1") -> ToolResult:
    [result] = asyncio.run(ex.execute([ToolCall(call_id, name, arguments)]))
    return result


def audit(root: Path) -> list[dict[str, Any]]:
    path = root / "home" / "approvals.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@dataclass
class Answers:
    """A callback approver's function: gives the answers in turn and keeps the requests."""

    answers: list[ApprovalAnswer | bool | dict[str, Any]]
    requests: list[ApprovalRequest] = field(default_factory=list)

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer | bool | dict[str, Any]:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else False
