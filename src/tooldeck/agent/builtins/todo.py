"""`todo`: the agent's task list for this session, kept in the run state (`RunState.todo`).

A state-update tool: it returns the new list as an update instead of writing anywhere,
so the loop merges it into the run state and the session store persists it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from tooldeck.core import RunState, RunStateUpdate, TodoItem, TodoStatus, ToolOutput
from tooldeck.errors import ToolError

_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]"}


def render(items: Sequence[TodoItem]) -> str:
    if not items:
        return "The todo list is empty."
    done = sum(1 for i in items if i.status == "completed")
    lines = [f"{_MARK[i.status]} {i.id}. {i.content}" for i in items]
    return f"Todo ({done}/{len(items)} done):\n" + "\n".join(lines)


def todo_action(
    state: RunState,
    action: Literal["list", "add", "update", "complete"],
    *,
    items: Sequence[str] = (),
    id: int | None = None,
    content: str | None = None,
    status: TodoStatus | None = None,
) -> ToolOutput:
    todos = list(state.todo)
    if action == "list":
        return ToolOutput(render(todos))
    if action == "add":
        if not items:
            raise ToolError("todo add: give the new tasks in `items` (a list of strings)")
        next_id = max((i.id for i in todos), default=0) + 1
        for offset, text in enumerate(items):
            if not text.strip():
                raise ToolError(f"todo add: items[{offset}] is empty")
            todos.append(TodoItem(next_id + offset, text.strip(), "pending"))
        return _updated(todos)
    if id is None:
        raise ToolError(f"todo {action}: give the task `id` (see `todo list`)")
    at = next((n for n, i in enumerate(todos) if i.id == id), None)
    if at is None:
        known = ", ".join(str(i.id) for i in todos) or "none"
        raise ToolError(f"todo {action}: no task with id {id} (ids: {known})")
    target = todos[at]
    if action == "complete":
        todos[at] = dataclasses.replace(target, status="completed")
    else:
        if content is None and status is None:
            raise ToolError("todo update: give a new `content`, a new `status`, or both")
        todos[at] = dataclasses.replace(
            target,
            content=content.strip() if content is not None else target.content,
            status=status if status is not None else target.status,
        )
    return _updated(todos)


def _updated(todos: list[TodoItem]) -> ToolOutput:
    return ToolOutput(render(todos), update=RunStateUpdate(todo=tuple(todos)))
