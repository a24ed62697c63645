"""`delegate_task`: run sub-agents on scoped tasks.

A sub-agent gets a subset of the parent's tools (the toolsets the task names, or all of the
parent's), never `delegate_task` itself (no recursive delegation), nor the tools that need the
user or touch shared memory (`clarify`, `memory`). It inherits the parent's model, policy and
sandbox unless the runtime overrides them. At most `max_concurrency` sub-agents run at once,
each under a timeout; each one's final answer comes back as part of the tool result.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck.core import Loadout
from tooldeck.errors import ModelError, ToolError

CHILD_BLOCKED: frozenset[str] = frozenset({"delegate_task", "clarify", "memory"})

SUBAGENT_SYSTEM = (
    "You are a sub-agent working on one delegated task for another agent. Use your tools to do the "
    "task, then reply with a concise, self-contained report: what you did, what you found, and any "
    "files you changed. The other agent sees only this final reply."
)


@dataclass(frozen=True, slots=True)
class SubTask:
    goal: str
    context: str = ""
    toolsets: tuple[str, ...] | None = None

    def prompt(self) -> str:
        return f"Task: {self.goal}\n\nContext:\n{self.context}" if self.context else f"Task: {self.goal}"


@dataclass(frozen=True, slots=True)
class SubOutcome:
    status: str  # done | budget_exhausted | interrupted | timeout | error
    text: str
    session_id: str | None = None
    iterations: int = 0


# Runs one sub-agent turn with `prompt` on the loadouts the function gives; the runtime supplies it.
Spawn = Callable[[Callable[[], Loadout], str, str | None], Awaitable[SubOutcome]]


def scoped_loadout(parent: Loadout, toolsets: Sequence[str] | None) -> Loadout:
    """The parent's tools a sub-agent may use: the named toolsets, minus the blocked tools."""
    allowed = [t for t in parent.exposed if t.name not in CHILD_BLOCKED]
    deferred = [t for t in parent.deferred if t.name not in CHILD_BLOCKED]
    if toolsets is not None:
        available = sorted({t.toolset for t in allowed} | {t.toolset for t in deferred})
        unknown = [name for name in toolsets if name not in available]
        if unknown:
            raise ToolError(
                f"delegate_task: toolset(s) {', '.join(unknown)} are not available to sub-agents; "
                f"available: {', '.join(available) or 'none'}"
            )
        wanted = set(toolsets)
        allowed = [t for t in allowed if t.toolset in wanted]
        deferred = [t for t in deferred if t.toolset in wanted]
    # tool_search goes with deferred tools (the sub-agent could not load them without it), and
    # only with them.
    loaders = [t for t in parent.exposed if t.loads_deferred] if deferred else []
    allowed = [t for t in allowed if not t.loads_deferred] + loaders
    names = frozenset(t.name for t in (*allowed, *deferred))
    return parent.restricted_to(names, why="not given to this sub-agent", gate="delegation")


class Delegator:
    """Runs sub-agent tasks with a concurrency cap and a per-task timeout."""

    def __init__(
        self,
        parent: Callable[[], Loadout],
        spawn: Spawn,
        *,
        max_concurrency: int = 3,
        timeout_s: float = 600.0,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("delegation max_concurrency must be >= 1")
        self.parent = parent
        self.spawn = spawn
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s

    async def run(
        self, tasks: Sequence[SubTask], *, parent_session: str | None = None
    ) -> list[dict[str, Any]]:
        if not tasks:
            raise ToolError("delegate_task: give a `goal` or a non-empty `tasks` list")
        current = self.parent()
        for t in tasks:  # errors before anything runs
            scoped_loadout(current, t.toolsets)
        gate = asyncio.Semaphore(self.max_concurrency)

        async def one(index: int, task: SubTask) -> dict[str, Any]:
            def loadouts() -> Loadout:
                return scoped_loadout(self.parent(), task.toolsets)

            async with gate:
                try:
                    outcome = await asyncio.wait_for(
                        self.spawn(loadouts, task.prompt(), parent_session), timeout=self.timeout_s
                    )
                except TimeoutError:
                    outcome = SubOutcome(
                        "timeout", f"the sub-agent did not finish within {self.timeout_s:g}s"
                    )
                except ModelError as exc:
                    outcome = SubOutcome("error", f"the sub-agent's model call failed: {exc}")
            return {
                "task": index,
                "goal": task.goal,
                "status": outcome.status,
                "result": outcome.text,
                "session_id": outcome.session_id,
                "iterations": outcome.iterations,
            }

        return list(await asyncio.gather(*(one(i, t) for i, t in enumerate(tasks))))


def parse_tasks(
    goal: str | None, context: str | None, toolsets: Sequence[str] | None, tasks: Sequence[Any] | None
) -> list[SubTask]:
    """The tool's arguments as tasks: one `goal`, or a `tasks` batch (each with its own fields)."""
    out: list[SubTask] = []
    if goal:
        out.append(SubTask(goal, context or "", tuple(toolsets) if toolsets is not None else None))
    for i, item in enumerate(tasks or []):
        data = item if isinstance(item, dict) else item.model_dump()
        g = str(data.get("goal") or "").strip()
        if not g:
            raise ToolError(f"delegate_task: tasks[{i}].goal is empty")
        ts = data.get("toolsets")
        out.append(SubTask(g, str(data.get("context") or ""), tuple(ts) if ts is not None else None))
    return out


def render_results(results: list[dict[str, Any]]) -> str:
    return json.dumps({"results": results}, ensure_ascii=False, indent=1)
