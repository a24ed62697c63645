"""Undoing calls: the workspace put back as it was before a checkpoint, byte for byte.

`undo(store, workspace)` undoes the last call that changed something; `undo(..., to=ID)` puts
back the state before checkpoint ID, undoing it and every later one. For each path the calls
touched, what it must hold now is what the newest of them left; anything else means someone
changed it since (the user edited it, another program ran): that is a conflict, and undo
refuses, names each such path and changes nothing, unless `force`. Otherwise each path gets
back what it held before the oldest of them: file bytes and mode, a symlink's target, a folder,
a named pipe or socket; what the calls created is removed (a folder only when it is empty). Paths are the
workspace's own entries: no symlink is followed on the way, so a folder a call swapped for a
link (pointing anywhere) is put back by removing the link. The undone checkpoints are dropped
from the store.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field

from tooldeck._core.checkpoints.state import PathState, state_at
from tooldeck._core.checkpoints.store import Checkpoint, CheckpointStore
from tooldeck._core.fs import Refused
from tooldeck._core.workspace import Workspace
from tooldeck.errors import CheckpointConflict, CheckpointError


@dataclass
class UndoReport:
    """What an undo did."""

    undone: list[int]
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # Folders the calls made that now hold files they did not make, and files too large to have
    # been kept (with force): left as they are.
    kept: list[str] = field(default_factory=list)
    # Paths restored over later changes (only with force).
    overwritten: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "undone": self.undone,
            "restored": self.restored,
            "removed": self.removed,
            "kept": self.kept,
            "overwritten": self.overwritten,
        }


def undo(
    store: CheckpointStore, workspace: Workspace, to: int | None = None, *, force: bool = False
) -> UndoReport:
    """See the module docstring."""
    checkpoints = store.checkpoints()
    if not checkpoints:
        raise CheckpointError(f"nothing to undo: no checkpoints for the workspace {workspace.root}")
    if to is None:
        undone = checkpoints[:1]
    else:
        if not any(c.id == to for c in checkpoints):
            known = ", ".join(str(c.id) for c in checkpoints[:10])
            raise CheckpointError(f"no checkpoint {to} for the workspace {workspace.root} (newest: {known})")
        undone = [c for c in checkpoints if c.id >= to]
    expected, target = _plan(undone)
    fs = workspace.fs
    conflicts = []
    for path, wanted in expected.items():
        try:
            now = state_at(fs, path.split("/"))
        except (Refused, OSError):
            now = PathState("other")  # leads outside the workspace now, or cannot be read
        if wanted is None or not now.same_as(wanted):
            conflicts.append((path, wanted, now))
    if conflicts and not force:
        lines = "; ".join(
            f"{p} (the call left {w.describe() if w else 'something not recorded: it did not finish'}, "
            f"now {n.describe()})"
            for p, w, n in conflicts
        )
        raise CheckpointConflict(
            f"undo would overwrite changes made since checkpoint {undone[-1].id}: {lines}. "
            "Nothing was restored; use --force (force=True) to restore anyway",
            [p for p, _, _ in conflicts],
        )
    unkept = sorted(p for p, state in target.items() if state.kind == "file" and not state.digest)
    if unkept and not force:
        raise CheckpointError(
            f"undo cannot restore {', '.join(unkept)}: too large to keep when it changed "
            "(checkpoints.max_file_bytes; the change was approved so); nothing was restored. "
            "Use --force (force=True) to restore everything else"
        )
    report = UndoReport(undone=[c.id for c in undone], overwritten=[p for p, _, _ in conflicts])
    report.kept += unkept
    for path in unkept:
        del target[path]
    try:
        _restore(store, workspace, target, report)
    except (Refused, OSError) as exc:
        done = ", ".join(report.restored + report.removed) or "nothing"
        raise CheckpointError(
            f"undo stopped: {exc} (restored so far: {done}); the checkpoints are kept, so it can be tried again"
        ) from None
    store.remove(report.undone)
    return report


def _plan(undone: list[Checkpoint]) -> tuple[dict[str, PathState | None], dict[str, PathState]]:
    """For each path: what the newest undone call left, and what it held before the oldest."""
    expected: dict[str, PathState | None] = {}
    target: dict[str, PathState] = {}
    for checkpoint in undone:  # newest first
        for change in checkpoint.changes:
            expected.setdefault(change.path, change.after)
            target[change.path] = change.before  # the oldest wins
    return expected, target


def restore(store: CheckpointStore, workspace: Workspace, target: dict[str, PathState]) -> UndoReport:
    """Put each path of `target` back as it says, without checking what is there now."""
    report = UndoReport(undone=[])
    _restore(store, workspace, {p: s for p, s in target.items() if s.kind != "file" or s.digest}, report)
    return report


def _restore(
    store: CheckpointStore, workspace: Workspace, target: dict[str, PathState], report: UndoReport
) -> None:
    fs = workspace.fs
    by_depth = sorted(target, key=lambda p: (p.count("/"), p))
    # What must go: files and links first (deepest first), so folders can empty.
    for path in reversed(by_depth):
        state = target[path]
        now = state_at(fs, path.split("/"))
        if state.kind != "folder" and now.kind in ("file", "symlink", "other") and state.kind == "absent":
            fs.remove_entry(path.split("/"))
            report.removed.append(path)
    # Folders that must exist, shallowest first; then the files and links.
    for path in by_depth:
        state = target[path]
        if state.kind == "folder":
            now = state_at(fs, path.split("/"))
            if now.kind != "folder":
                if now.kind != "absent":
                    fs.remove_entry(path.split("/"))
                fs.make_folder(path.split("/"), state.mode)
                report.restored.append(path)
            elif now.mode != state.mode:
                fs.make_folder(path.split("/"), state.mode)
                report.restored.append(path)
    for path in by_depth:
        state = target[path]
        parts = path.split("/")
        if state.kind == "file":
            now = state_at(fs, parts)
            if now.same_as(state):
                continue
            if now.kind == "folder":
                fs.remove_entry(parts)
            if now.kind == "symlink":
                fs.remove_entry(parts)
            fs.write_atomic(parts, store.read_bytes(state.digest), mode=state.mode)
            report.restored.append(path)
        elif state.kind == "symlink" or (stat.S_ISFIFO(state.mode) or stat.S_ISSOCK(state.mode)):
            if state_at(fs, parts).same_as(state):
                continue
            if state.kind == "symlink":
                fs.write_symlink(parts, state.target)
            else:
                fs.make_node(parts, state.mode)
            report.restored.append(path)
    # Folders the calls made: removed when empty (deepest first).
    for path in reversed(by_depth):
        if target[path].kind == "absent" and state_at(fs, path.split("/")).kind == "folder":
            try:
                fs.remove_entry(path.split("/"))
                report.removed.append(path)
            except OSError:
                report.kept.append(path)
