"""`present_files`: a state-update tool. It adds files to the run's `artifacts` (what a UI
shows the user as results); paths must exist inside the workspace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from tooldeck.core import RunState, RunStateUpdate, ToolOutput
from tooldeck.errors import ToolError


def present(
    state: RunState,
    workspace: Path,
    paths: Sequence[str],
    *,
    hidden: Callable[[str], bool] = lambda _: False,
) -> ToolOutput:
    """Add `paths` to the run's artifacts; `hidden` resolved paths (the tooldeck home) are
    answered like missing files."""
    if not paths:
        raise ToolError("present_files: give at least one path")
    root = workspace.resolve()
    artifacts = list(state.artifacts)
    added = []
    for raw in paths:
        path = (root / raw).resolve()
        if not path.is_relative_to(root):
            raise ToolError(f"present_files: {raw!r} is outside the workspace {root}")
        if not path.is_file() or hidden(str(path)):
            raise ToolError(f"present_files: {raw!r} is not a file in the workspace")
        rel = path.relative_to(root).as_posix()
        if rel not in artifacts:
            artifacts.append(rel)
            added.append(rel)
    listing = ", ".join(added) if added else "nothing new"
    return ToolOutput(
        f"Presented to the user: {listing}. Artifacts now: {len(artifacts)}.",
        update=RunStateUpdate(artifacts=tuple(artifacts)),
    )
