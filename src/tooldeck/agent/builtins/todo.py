"""`todo`: the agent's task list for this session, kept in the run state under `todo`.

A state-update tool: it returns the new list as an update instead of writing anywhere,
so the loop merges it into the run state and the session store persists it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from tooldeck.errors import ToolError
from tooldeck.output import ToolOutput

TodoStatus = Literal["pending", "in_progress", "completed", "cancelled"]
STATE_KEY = "todo"
_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]"}


def current(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    items = state.get(STATE_KEY)
    return [dict(i) for i in items] if isinstance(items, list) else []


def render(items: Sequence[Mapping[str, Any]]) -> str:
    if not items:
        return "The todo list is empty."
    done = sum(1 for i in items if i["status"] == "completed")
    lines = [f"{_MARK[i['status']]} {i['id']}. {i['content']}" for i in items]
    return f"Todo ({done}/{len(items)} done):\n" + "\n".join(lines)


def todo_action(
    state: Mapping[str, Any],
    action: Literal["list", "add", "update", "complete"],
    *,
    items: Sequence[str] = (),
    id: int | None = None,
    content: str | None = None,
    status: TodoStatus | None = None,
) -> ToolOutput:
    todos = current(state)
    if action == "list":
        return ToolOutput(render(todos))
    if action == "add":
        if not items:
            raise ToolError("todo add: give the new tasks in `items` (a list of strings)")
        next_id = max((i["id"] for i in todos), default=0) + 1
        for offset, text in enumerate(items):
            if not text.strip():
                raise ToolError(f"todo add: items[{offset}] is empty")
            todos.append({"id": next_id + offset, "content": text.strip(), "status": "pending"})
        return ToolOutput(render(todos), update={STATE_KEY: todos})
    if id is None:
        raise ToolError(f"todo {action}: give the task `id` (see `todo list`)")
    target = next((i for i in todos if i["id"] == id), None)
    if target is None:
        known = ", ".join(str(i["id"]) for i in todos) or "none"
        raise ToolError(f"todo {action}: no task with id {id} (ids: {known})")
    if action == "complete":
        target["status"] = "completed"
    else:
        if content is None and status is None:
            raise ToolError("todo update: give a new `content`, a new `status`, or both")
        if content is not None:
            target["content"] = content.strip()
        if status is not None:
            target["status"] = status
    return ToolOutput(render(todos), update={STATE_KEY: todos})
