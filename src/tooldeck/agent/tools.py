"""Agent-level tools: todo, memory, session_search, clarify, delegate_task,
present_files. Ordinary `Tool`s; their handlers live in `tooldeck.agent.builtins` and reach the
running agent (sessions, memory files, the delegator) through their `ToolContext`.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict  # pydantic needs this TypedDict before 3.12

# Only light modules here: discovering the built-in tools must not load the loop, the model
# clients or SQLite. delegate_task and session_search import their machinery when called.
from tooldeck.agent.builtins.clarify import clarify_output
from tooldeck.agent.builtins.memory import memory_action
from tooldeck.agent.builtins.present_files import present
from tooldeck.agent.builtins.todo import todo_action
from tooldeck.agent.config import AgentConfig
from tooldeck.agent.services import call_services, services_of
from tooldeck.core import DescriptionContext, RunState, TodoStatus, ToolContext, ToolOutput, tool
from tooldeck.errors import ToolError


@tool(toolset="todo", sequential=True, essential=True)
def todo(
    action: Literal["list", "add", "update", "complete"],
    items: list[str] | None = None,
    id: int | None = None,
    content: str | None = None,
    status: TodoStatus | None = None,
    context: ToolContext | None = None,
) -> ToolOutput:
    """Keep a task list for this session: plan multi-step work, then track it.

    Args:
        action: list the tasks, add new ones, update one (content or status), or complete one.
        items: for add: the new tasks, one string each.
        id: for update/complete: the task's number as shown by list.
        content: for update: the new text of the task.
        status: for update: pending, in_progress, completed or cancelled.
    """
    state = context.state if context is not None else RunState()
    return _applied(
        state, todo_action(state, action, items=items or (), id=id, content=content, status=status)
    )


@tool(toolset="memory", sequential=True)
def memory(
    action: Literal["add", "replace", "remove", "read"],
    target: Literal["memory", "user"] = "memory",
    content: str | None = None,
    old_text: str | None = None,
    context: ToolContext | None = None,
) -> str:
    """Durable memory across sessions: your notes (target memory) and facts about the user (target user).

    Save what will matter in later sessions (preferences, environment facts, lessons learned), not
    task progress. Each file has a size cap; replace or remove entries when it is full. Changes
    appear in your instructions from the next session on.

    Args:
        action: add an entry, replace or remove the entry containing old_text, or read a file.
        target: memory (MEMORY.md, your notes) or user (USER.md, about the user).
        content: for add/replace: the entry text.
        old_text: for replace/remove: a unique piece of the entry to change.
    """
    return memory_action(call_services(context, "memory").memory, action, target, content, old_text)


@tool(toolset="session_search", read_only=True, idempotent=True)
def session_search(query: str, limit: int = 5, context: ToolContext | None = None) -> str:
    """Search the messages of past sessions (full text, ranked) to recall earlier work or decisions.

    Args:
        query: words to look for; any of them may match, better matches first.
        limit: how many matching messages to return (1-50).
    """
    from tooldeck.agent.builtins.session_search import search_sessions
    from tooldeck.agent.sessions import SessionStore

    services = call_services(context, "session_search")
    if services.store is not None:
        return search_sessions(
            services.store, query, limit=limit, current_session=context.session_id if context else None
        )
    if services.sessions_db is None:  # an agent told to keep its sessions in memory only
        raise ToolError("this agent keeps no session store (store=False): there are no past sessions to search",
                        type="unavailable")  # fmt: skip
    with SessionStore(services.sessions_db) as store:
        return search_sessions(store, query, limit=limit, current_session=None)


@tool(toolset="clarify", interactive=True, essential=True, needs_agent=True)
def clarify(question: str, choices: list[str] | None = None) -> ToolOutput:
    """Ask the user a question when the request is ambiguous or a decision is theirs to make.

    The run stops here; the user's answer comes back as their next message.

    Args:
        question: the question, self-contained.
        choices: optional answers to offer.
    """
    return clarify_output(question, choices)


class _TaskGoal(TypedDict):
    goal: str


# Required keys by totality (not `Required[...]`, unseen under postponed annotations).
class DelegatedTask(_TaskGoal, total=False):
    """One sub-agent's task.

    Args:
        goal: What the sub-agent must achieve.
        context: Everything it needs to know: it sees nothing else.
        toolsets: Toolsets it may use (default: all yours).
    """

    context: str
    toolsets: list[str] | None


@tool(toolset="delegation", needs_agent=True)
async def delegate_task(
    goal: str | None = None,
    context: str | None = None,
    toolsets: list[str] | None = None,
    tasks: list[DelegatedTask] | None = None,
    ctx: ToolContext | None = None,
) -> str:
    """Hand work to sub-agents.

    Args:
        goal: one task for one sub-agent.
        context: what that sub-agent needs to know; it does not see this conversation.
        toolsets: toolsets it may use (default: all of yours except delegation).
        tasks: several independent tasks, each {goal, context, toolsets}, run in parallel.
    """
    from tooldeck.agent.builtins.delegate import parse_tasks, render_results

    services = services_of(ctx)
    if services is None or services.delegator is None:
        raise ToolError(
            "delegate_task runs sub-agents and works only inside an agent run (tooldeck run/chat)"
        )
    jobs = parse_tasks(goal, context, toolsets, tasks)
    results = await services.delegator.run(jobs, parent_session=ctx.session_id if ctx else None)
    return render_results(results)


def _delegate_description(ctx: DescriptionContext) -> str:
    limit = ctx.config.section(AgentConfig).delegation_max_concurrency if ctx.config is not None else 3
    return (
        "Hand work to sub-agents that run with a subset of your tools and report back. Give one `goal` "
        f"(with `context`), or a `tasks` list for parallel work; at most {limit} sub-agents run at a time. "
        "Sub-agents cannot delegate further or ask the user questions. Use it for independent, "
        "self-contained pieces of work whose intermediate steps you do not need to see."
    )


delegate_task = delegate_task.with_options(description=_delegate_description, calls_tools=True)


@tool(toolset="file", sequential=True, needs_workspace=True, needs_agent=True)
def present_files(paths: list[str], context: ToolContext | None = None) -> ToolOutput:
    """Show files you produced to the user as results of this task (paths relative to the workspace).

    Args:
        paths: the files to present.
    """
    from pathlib import Path

    from tooldeck.core import Workspace

    workspace = context.workspace if context is not None and context.workspace is not None else Path.cwd()
    state = context.state if context is not None else RunState()
    ws = context.get(Workspace) if context is not None else None
    plane = ws.plane if ws is not None else None
    hidden = (lambda path: plane.hides(path)) if plane is not None else (lambda _: False)
    return _applied(state, present(state, workspace, paths, hidden=hidden))


def _applied(state: RunState, output: ToolOutput) -> ToolOutput:
    """Write the update through to the batch's state as well as returning it: a later call in the
    same batch (these tools are sequential) must see it before the loop merges the results."""
    if output.state_update is not None:
        state.apply(output.state_update)
    return output
