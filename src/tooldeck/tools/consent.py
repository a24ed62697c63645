"""Consent for changes of protected paths (`sandbox.protected`, the config file and the modules
it imports): the file tools ask through the call's approvals, mid-call, like any other approval
(approvals.mode, the terminal prompt or the approver, session grants), bound to the exact path
(rule `protected-path:PATH`). With nobody to ask, the answer is no and the edit is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from tooldeck.core import Approvals, ApprovalsConfig, PathChange, ToolCaller, ToolContext, Workspace, service
from tooldeck.errors import ToolError

RULE = "protected-path"


def require_consent(
    context: ToolContext | None,
    ws: Workspace,
    parts: Sequence[str],
    *,
    action: str,
    change: PathChange | Callable[[], PathChange] | None = None,
) -> tuple[str, ...]:
    """Return when `parts` is not protected (no paths) or the change was approved (the resolved
    path approved, for `Workspace.guard`); raise `denied` otherwise. `change` (or a function
    making it, called only for a protected path) is what the path becomes: a class judged by
    content (a git config) lets a change through that holds nothing that runs a program."""
    real = ws.resolve(parts)
    plane = ws.plane
    if plane is None:
        return ()
    by_content = plane.judged_by_content(real)
    if callable(change):
        change = change() if by_content else PathChange("file")
    why = plane.protects(real, change)
    if why is None:
        # Judged harmless as it will be written: the guard lets this path through, whatever
        # the file holds now.
        return (real,) if by_content and change is not None else ()
    name = ws.display(parts)
    # Asked and granted by what the change reaches: an 'always' for a link's name must not
    # cover whatever the link is pointed at later.
    reached = plane.relative(real)
    target = reached if reached else real
    shown = name if target == name else f"{name} (which leads to {target})"
    if _approved(context, shown, target, why, action):
        return (real,)
    raise ToolError(
        f"denied: {name!r} is protected ({why}); {action} it needs the user's approval, which was not given. "
        "Leave it as it is, or ask the user to make this change",
        type="denied",
    )


def _approved(context: ToolContext | None, name: str, target: str, why: str, action: str) -> bool:
    approvals = context.get(Approvals) if context is not None else None
    caller = context.get(ToolCaller) if context is not None else None
    if context is None or approvals is None or caller is None:
        return False
    try:
        asyncio.get_running_loop()
        return False  # on the event loop's own thread a wait for the answer would never end
    except RuntimeError:
        pass
    timeout_s = service(context, ApprovalsConfig).timeout_s
    question = approvals.ask(
        context,
        reason=f"{action} {name}, which is protected ({why})",
        rule=f"{RULE}:{target}",
        details={"path": target, "action": action},
    )
    future = asyncio.run_coroutine_threadsafe(question, caller.loop)
    try:
        return bool(future.result(timeout=timeout_s + 30))
    except Exception:  # boundary: an approval that fails or never answers is a no
        future.cancel()
        return False
