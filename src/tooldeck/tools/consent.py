"""Consent for changes of protected paths (`sandbox.protected`, the config file and the modules
it imports): the file tools ask through the call's approvals, mid-call, like any other approval
(approvals.mode, the terminal prompt or the approver, session grants), bound to the exact path
(rule `protected-path:PATH`). With nobody to ask, the answer is no and the edit is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tooldeck.core import Approvals, ApprovalsConfig, ToolCaller, ToolContext, Workspace, service
from tooldeck.errors import ToolError

RULE = "protected-path"


def require_consent(
    context: ToolContext | None, ws: Workspace, parts: Sequence[str], *, action: str
) -> tuple[str, ...]:
    """Return when `parts` is not protected (no paths) or the change was approved (the resolved
    path approved, for `Workspace.guard`); raise `denied` otherwise."""
    real = ws.resolve(parts)
    why = ws.plane.protects(real) if ws.plane is not None else None
    if why is None:
        return ()
    name = ws.display(parts)
    # Asked and granted by what the change reaches: an 'always' for a link's name must not
    # cover whatever the link is pointed at later.
    reached = ws.plane.relative(real) if ws.plane is not None else None
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
