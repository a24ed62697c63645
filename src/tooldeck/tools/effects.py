"""A shell or code call's effects, judged before they land (issue #23 §2).

The command runs in the sandbox against a copy-on-write view of the workspace (`safety/sandbox/cow.py`:
an overlay whose upper layer catches every change). When it ends, `safety/sandbox/effects_view.py` reads
what it did - files deleted, emptied, replaced, changed, created - before anything reaches the
workspace. Effects beyond what was consented are **held**:

  * deleting, emptying or replacing more files that existed before than `effects.max_deletions`;
  * changing more paths than `effects.max_changed`;
  * touching a protected path (the config, hooks, the tooldeck home: the control plane's set);
  * changing a file too large to checkpoint (`checkpoints.max_file_bytes`), or files whose earlier
    bytes would take the checkpoint store past `checkpoints.keep.max_bytes`.

A call that would write more than `sandbox.limits.disk_mb` into the workspace is an error, and
nothing of it lands (with the copy-on-write view, nothing reached the workspace; the slower way,
what it wrote is reverted).

Held effects are put to the call's approver with the concrete list ("would delete 31 files
under src/ ..."); without one, or when it says no, the call is a `denied` error naming them and
nothing lands — unless the run can wait (`approvals.unattended: interrupt` in an agent run): then
they are kept as seen (`effects_held`) and the call waits with the session for a decision. Effects that may land are applied through the workspace's confined file access -
so the call's checkpoint records each path before it changes - and all at once: if one change
fails, those made before it are put back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import stat
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck.core import Approvals as CallApprovals
from tooldeck.core import (
    CheckpointsConfig,
    CheckpointStore,
    EffectsConfig,
    PathChange,
    PathState,
    ToolContext,
    Workspace,
    current_checkpoint,
    current_write_budget,
    service,
)
from tooldeck.errors import ApprovalPending, ToolError

if TYPE_CHECKING:
    from tooldeck.safety.sandbox.bubblewrap import BwrapRunner, CommandRunner
    from tooldeck.safety.sandbox.capture import RunResult
    from tooldeck.safety.sandbox.effects_view import Effect, Effects, Verb, Was
    from tooldeck.safety.sandbox.snapshot import Seen

ABSENT = PathState("absent")
MIB = 1024 * 1024
# The most bytes of held effects kept in the home to wait for a later decision; more is asked now.
HELD_MAX_BYTES = 64 * MIB
log = logging.getLogger("tooldeck.effects")
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclasses.dataclass(frozen=True, slots=True)
class Judged:
    """A command's result, and what of its effects reached the workspace."""

    result: RunResult
    # One line for the model ("" when the command changed nothing or wrote the workspace itself).
    landed: str


def run_judged(
    context: ToolContext | None,
    chosen: CommandRunner,
    argv: Sequence[str],
    *,
    timeout_s: float,
    cancel: threading.Event | None,
    subject: str,
    pass_fds: Sequence[int] = (),
    view: bool = True,
) -> Judged:
    """Run `argv` with `chosen` over a copy-on-write view when it is the sandbox (see the module
    docstring); `subject` is what approval questions name (the command line). `view=False`: the
    slower way even in the sandbox (`execute_code`, whose nested tool calls act on the workspace
    itself and must see what the program did)."""
    from tooldeck.safety.sandbox.bubblewrap import BwrapRunner

    settings = service(context, EffectsConfig)
    if not settings.enabled or context is None or context.home is None:
        return Judged(run_in(chosen, argv, timeout_s=timeout_s, cancel=cancel, pass_fds=pass_fds), "")
    if not view or not isinstance(chosen, BwrapRunner):
        return _before_and_after(
            context, chosen, argv, timeout_s=timeout_s, cancel=cancel, subject=subject, pass_fds=pass_fds
        )
    judged = _in_view(
        context, chosen, argv, timeout_s=timeout_s, cancel=cancel, subject=subject, pass_fds=pass_fds
    )
    if judged is not None:
        return judged
    # No view could be mounted here (the workspace's file system cannot be an overlay's lower
    # layer, or the kernel refuses it; the command did not run): the slower way, never none.
    return _before_and_after(
        context, chosen, argv, timeout_s=timeout_s, cancel=cancel, subject=subject, pass_fds=pass_fds
    )


def _in_view(
    context: ToolContext,
    chosen: BwrapRunner,
    argv: Sequence[str],
    *,
    timeout_s: float,
    cancel: threading.Event | None,
    subject: str,
    pass_fds: Sequence[int],
) -> Judged | None:
    """Run in a copy-on-write view and land what may land; None when no view can be mounted."""
    from tooldeck.safety.sandbox import protected_mounts
    from tooldeck.safety.sandbox.bubblewrap import BwrapRunner
    from tooldeck.safety.sandbox.cow import layers, sized
    from tooldeck.safety.sandbox.effects_view import read_effects

    settings = service(context, EffectsConfig)
    assert context.home is not None
    workspace = service(context, Workspace)
    root = str(workspace.root)
    uid = chosen.settings.uid if os.geteuid() == 0 else None
    # The read-only placeholders of protected paths: bwrap makes their mount points in the view.
    _, placeholders = protected_mounts.plan(
        root, chosen.settings.protected, chosen.settings.placeholder_texts
    )
    mount_points = {os.path.relpath(p.path, root) for p in placeholders}
    disk_mb = chosen.settings.limits.disk_mb if sized() else None
    with layers(scratch_for(context.home, workspace.root), workspace.root, uid, size_mb=disk_mb) as (
        upper,
        work,
    ):
        viewed = BwrapRunner(
            dataclasses.replace(chosen.settings, layers=(upper, work), layer_mb=disk_mb or 0),
            bwrap=chosen.bwrap,
        )
        try:
            result = run_in(viewed, argv, timeout_s=timeout_s, cancel=cancel, pass_fds=pass_fds)
        except ToolError as exc:
            if "copy-on-write view" not in str(exc):
                raise
            log.info("no copy-on-write view of %s, judging by a look before and after: %s", root, exc)
            return None
        effects = read_effects(str(upper), root).without_mount_points(mount_points)
        if not effects:
            return Judged(result, "")
        budget = current_write_budget()
        if budget is not None and (_filled(upper, viewed) or landing_bytes(effects) > budget.room()):
            total = None if _filled(upper, viewed) else landing_bytes(effects)
            raise ToolError(
                f"{budget.over(total)}; nothing of the command's changes reached the workspace",
                output=result.output,
            )
        held = held_because(effects, settings, context, workspace, written=str(upper))
        waits = Waiting(str(upper), result.output, workspace)
        if held and not _approved(context, effects, held, subject, waits):
            raise ToolError(
                f"denied: the command ran in a copy-on-write view of the workspace, and its effects "
                f"were held: it {effects.summary()} ({'; '.join(held)}). Nothing of it reached the "
                "workspace. Ask the user, or do less at once",
                type="denied",
                output=result.output,
            )
        land(
            workspace,
            upper,
            effects,
            unkept=_unkept(effects, context),
        )
    recording = current_checkpoint()
    undo = (
        f"; undo: tooldeck undo {recording.id}" if recording is not None and recording.id is not None else ""
    )
    return Judged(result, f"[workspace changed: {effects.summary(done=True)}{undo}]")


def run_in(
    chosen: CommandRunner,
    argv: Sequence[str],
    *,
    timeout_s: float,
    cancel: threading.Event | None,
    pass_fds: Sequence[int] = (),
) -> RunResult:
    """Run `argv` with the chosen runner; a sandbox that cannot start is the tool's error."""
    from tooldeck.safety.sandbox.bubblewrap import SandboxUnavailable

    try:
        return chosen.run_argv(argv, timeout_s=timeout_s, cancel=cancel, pass_fds=pass_fds)
    except SandboxUnavailable as exc:
        raise ToolError(str(exc), type="unavailable") from None


def _before_and_after(
    context: ToolContext,
    chosen: CommandRunner,
    argv: Sequence[str],
    *,
    timeout_s: float,
    cancel: threading.Event | None,
    subject: str,
    pass_fds: Sequence[int],
) -> Judged:
    """The slower way, where no copy-on-write view is possible (a command on the host, a program
    whose tool calls change the workspace itself): the
    workspace is looked at before and after (one walk each; the bytes of every file kept in the
    checkpoint store, read again only when a file changed), the command runs on the workspace
    itself, and effects beyond consent are reverted from what was kept, so none of them stays.
    Without checkpoints there is nowhere to keep the bytes: the command runs unjudged."""
    from tooldeck.safety.sandbox.snapshot import scan

    recording = current_checkpoint()
    store = context.get(CheckpointStore)
    if recording is None or store is None:
        return Judged(run_in(chosen, argv, timeout_s=timeout_s, cancel=cancel, pass_fds=pass_fds), "")
    workspace = service(context, Workspace)
    root = str(workspace.root)
    limit = service(context, CheckpointsConfig).max_file_bytes
    with store.pinning() as pinned:
        before = scan(root, workspace.hides_relative)
        kept = {rel: _kept_state(workspace, store, rel, seen, limit) for rel, seen in before.items()}
        pinned.update(state.digest for state in kept.values() if state.digest)
        result = run_in(chosen, argv, timeout_s=timeout_s, cancel=cancel, pass_fds=pass_fds)
        after = scan(root, workspace.hides_relative)
        effects = _host_effects(workspace, before, after, kept)
        if not effects:
            return Judged(result, "")
        for effect in effects.entries:
            recording.note_state(effect.path, kept.get(effect.path, ABSENT))
    budget = current_write_budget()
    if budget is not None and landing_bytes(effects) > budget.limit_mb * MIB:
        # Its nested tool calls were counted as they wrote; what the program wrote itself is
        # counted here, all of it, so nothing is counted twice.
        recording.rollback()
        raise ToolError(
            f"{budget.over(landing_bytes(effects))}; what it wrote was reverted from the checkpoint",
            output=result.output,
        )
    held = held_because(effects, service(context, EffectsConfig), context, workspace, written=root, kept=True)
    if held and not _approved(context, effects, held, subject):
        recording.rollback()
        where = (
            "on the workspace itself, so its tool calls see its changes"
            if chosen.sandboxed
            else "on the host"
        )
        raise ToolError(
            f"denied: it ran {where} (no copy-on-write view) and its effects went beyond consent: it {effects.summary(done=True)} ({'; '.join(held)}). They were "
            "reverted from the checkpoint taken before it ran; ask the user, or do less at once",
            type="denied",
            output=result.output,
        )
    undo = f"; undo: tooldeck undo {recording.id}" if recording.id is not None else ""
    return Judged(result, f"[workspace changed: {effects.summary(done=True)}{undo}]")


def _kept_state(workspace: Workspace, store: CheckpointStore, rel: str, seen: Seen, limit: int) -> PathState:
    """What `rel` holds, its bytes kept (once per content; a file seen unchanged since is not read)."""
    if seen.kind == "folder":
        return PathState("folder", mode=seen.mode)
    if seen.kind == "symlink":
        return PathState("symlink", target=seen.target)
    if seen.kind != "file":
        return PathState("other", mode=seen.mode)
    known = _DIGESTS.get((rel, seen.identity))
    if known is not None and not store.holds(known):
        known = None  # collected since (pruned with the checkpoints that held it)
    if known is None:
        if seen.size > limit:
            return PathState("file", mode=seen.mode, size=seen.size)  # too large: not kept
        try:
            known = store.keep_bytes(_read_file(workspace, rel))
        except OSError:
            return PathState("other", mode=seen.mode)
        _DIGESTS[(rel, seen.identity)] = known
    return PathState("file", mode=seen.mode, size=seen.size, digest=known)


# (path, identity) -> digest of a file already kept: a file whose identity is unchanged since is
# not read again. Bounded: cleared when it grows past a size no workspace of files reaches twice.
_DIGESTS: dict[tuple[str, tuple[int, int, int, int]], str] = {}


def _host_effects(
    workspace: Workspace, before: dict[str, Seen], after: dict[str, Seen], kept: dict[str, PathState]
) -> Effects:
    from tooldeck.safety.sandbox.effects_view import Effect, Effects
    from tooldeck.safety.sandbox.snapshot import changed

    if len(_DIGESTS) > 1_000_000:
        _DIGESTS.clear()
    entries = []
    for rel in changed(before, after):
        old, new = before.get(rel), after.get(rel)
        was: Was = old.kind if old is not None else "absent"
        now: Was = new.kind if new is not None else "absent"
        size_before = old.size if old is not None else 0
        size_after = new.size if new is not None else 0
        verb: Verb
        if was == "absent":
            verb = "created"
        elif now == "absent":
            verb = "deleted"
        elif was != now:
            verb = "replaced"
        elif was == "folder":
            if old is not None and new is not None and old.mode == new.mode:
                continue  # only its entries changed, and they are listed themselves
            verb = "modified"
        elif was == "file" and new is not None and old is not None:
            if new.mode == old.mode and new.size == old.size and _same_bytes(workspace, rel, kept.get(rel)):
                continue  # touched or rewritten with the same bytes
            verb = "emptied" if new.size == 0 and old.size > 0 else "modified"
        else:
            verb = "modified"
        entries.append(Effect(rel, verb, was, now, size_before, size_after))
    return Effects(entries)


def _same_bytes(workspace: Workspace, rel: str, before: PathState | None) -> bool:
    if before is None or not before.digest:
        return False
    try:
        return hashlib.sha256(_read_file(workspace, rel)).hexdigest() == before.digest
    except OSError:
        return False


def _read_file(workspace: Workspace, rel: str) -> bytes:
    fd = workspace.fs.open(tuple(rel.split("/")), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{rel} is no longer a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def scratch_for(home: Path, workspace: Path) -> Path:
    """Where the layers go: under the home, unless the home lies inside the workspace (a layer
    may not lie inside the tree it covers): then a private folder in the temporary folder,
    which the sandbox never sees either (its /tmp is its own)."""
    real = Path(os.path.realpath(home))
    if real != workspace and workspace not in real.parents:
        return real / "cow"
    folder = Path(tempfile.gettempdir()) / f"tooldeck-cow-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    st = os.lstat(folder)
    if st.st_uid != os.getuid() or not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o077:
        raise ToolError(f"{folder} is not a private folder of this user; remove it", type="unavailable")
    return folder


def landing_bytes(effects: Effects) -> int:
    """The bytes the files these effects create or change hold: what landing them writes."""
    return sum(e.size_after for e in effects.entries if e.now == "file")


def _filled(upper: Path, chosen: BwrapRunner) -> bool:
    """Whether the command filled a copy-on-write layer of its own size (then it wrote more than
    the layer holds: sandbox.limits.disk_mb)."""
    if not chosen.settings.layer_mb:
        return False  # the layer is no filesystem of its own
    st = os.statvfs(upper)
    return st.f_bavail * st.f_frsize < MIB // 2


def held_because(
    effects: Effects,
    settings: EffectsConfig,
    context: ToolContext,
    workspace: Workspace,
    *,
    written: str,
    kept: bool = False,
) -> list[str]:
    """Why these effects need approval (empty: they may land); `written` is the folder holding
    what the command wrote (the view's upper layer, or the workspace itself), `kept`: the earlier
    bytes are in the checkpoint store already (the slower way keeps them before the command runs)."""
    reasons = []
    destroyed = effects.destroyed()
    if len(destroyed) > settings.max_deletions:
        reasons.append(
            f"{len(destroyed)} files that existed before would be deleted, emptied or replaced; "
            f"effects.max_deletions is {settings.max_deletions}"
        )
    if len(effects) > settings.max_changed:
        reasons.append(f"{len(effects)} paths would change; effects.max_changed is {settings.max_changed}")
    protected = [
        f"{e.path} ({why})" for e in effects.entries if (why := _protected_entry(workspace, e, written))
    ]
    if protected:
        more = f"; and {len(protected) - 5} more" if len(protected) > 5 else ""
        reasons.append(f"it touches protected paths: {'; '.join(protected[:5])}{more}")
    over = _over_store_budget(effects, context, kept=kept)
    if over:
        size = sum(e.size_before for e in effects.entries if e.path in over)
        reasons.append(
            f"keeping the {size} bytes {len(over)} changed files held before would take the checkpoint "
            f"store past checkpoints.keep.max_bytes ({service(context, CheckpointsConfig).keep.max_bytes}), "
            "and the history that undoes earlier changes is never evicted for it: these changes could not be undone"
        )
    large = sorted(_too_large(effects, context))
    if large:
        reasons.append(
            f"{', '.join(large[:5])} would change but is too large to checkpoint (checkpoints.max_file_bytes), "
            "so it could not be undone"
        )
    return reasons


def _protected_entry(workspace: Workspace, effect: Effect, written: str) -> str | None:
    """Why the entry `effect` changes (itself: a symlink there not followed) is protected, as it
    now is (a git config judged by the content written), or None."""
    plane = workspace.plane
    if plane is None:
        return None
    *folder, name = effect.path.split("/")
    change = PathChange(
        effect.now, source=os.path.join(written, effect.path) if effect.now == "file" else None
    )
    return plane.protects(os.path.join(workspace.resolve(folder), name), change)


def _over_store_budget(effects: Effects, context: ToolContext, *, kept: bool = False) -> set[str]:
    """The files whose earlier bytes would not fit in the checkpoint store (old sessions pruned
    first): all of them, since which to keep is not the store's choice. `kept`: they are in the
    store already, so it is over when it holds more than its budget now."""
    store = context.get(CheckpointStore)
    if store is None:
        return set()
    limit = service(context, CheckpointsConfig).max_file_bytes
    changed = [
        e for e in effects.entries if e.was == "file" and e.verb != "created" and e.size_before <= limit
    ]
    size = sum(e.size_before for e in changed)
    if not size or store.room_for(0 if kept else size, current=context.session_id):
        return set()
    return {e.path for e in changed}


def _unkept(effects: Effects, context: ToolContext) -> set[str]:
    """The files whose earlier bytes cannot be kept: approved with the effects, changed unkept."""
    return _too_large(effects, context) | _over_store_budget(effects, context)


def _too_large(effects: Effects, context: ToolContext) -> set[str]:
    limit = service(context, CheckpointsConfig).max_file_bytes
    return {
        e.path for e in effects.entries if e.was == "file" and e.verb != "created" and e.size_before > limit
    }


@dataclasses.dataclass(frozen=True, slots=True)
class Waiting:
    """What held effects need to wait for a later decision: the view's layer, the output."""

    upper: str
    output: str
    workspace: Workspace


def _approved(
    context: ToolContext, effects: Effects, held: list[str], subject: str, waits: Waiting | None = None
) -> bool:
    approvals = context.get(CallApprovals)
    if approvals is None:
        return False
    summary = effects.summary()
    rule = "effects:" + hashlib.sha256(f"{subject}\0{summary}".encode()).hexdigest()[:16]
    reason = f"the command would {summary.removeprefix('would ')} ({'; '.join(held)})"
    details: dict[str, str] = {"command": subject, "effects": summary}
    # Kept only where the run may stop for them, and only while they are of a size to keep.
    if (
        waits is None
        or context.home is None
        or not approvals.can_wait()
        or landing_bytes(effects) > HELD_MAX_BYTES
    ):
        return approvals.ask_sync(context, reason=reason, rule=rule, details=details)
    from tooldeck.tools.effects_held import keep

    # Kept first: if the run stops here, a later approval lands them as they were seen.
    bundle = keep(
        context.home,
        waits.workspace,
        waits.upper,
        effects,
        output=waits.output,
        subject=subject,
        unkept=_unkept(effects, context),
    )
    details |= {"held": bundle.id, "digest": bundle.digest}
    try:
        answer = approvals.ask_sync(context, reason=reason, rule=rule, details=details, deferrable=True)
    except ApprovalPending:
        raise  # kept: a later decision lands them as they are
    except BaseException:
        bundle.discard()
        raise
    bundle.discard()
    return answer


def land(workspace: Workspace, upper: os.PathLike[str] | str, effects: Effects, *, unkept: set[str]) -> None:
    """Apply `effects` from the layer `upper` to the workspace, all or none (see the module docstring)."""
    from tooldeck.tools.effects_held import all_or_none

    fs = workspace.fs
    top = os.open(upper, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        with all_or_none("the command's effects", unkept=unkept):
            for effect in effects.entries:
                parts = tuple(effect.path.split("/"))
                if effect.now == "absent":
                    fs.remove_entry(parts)
                    continue
                st = os.stat(effect.path, dir_fd=top, follow_symlinks=False)
                if effect.was not in ("absent", effect.now) or effect.was == "symlink":
                    fs.remove_entry(parts)  # a folder (emptied by the effects before) or a link
                if effect.now == "folder":
                    fs.make_folder(parts, stat.S_IMODE(st.st_mode))
                elif effect.now == "file":
                    fs.write_atomic(parts, _read(top, effect.path), mode=stat.S_IMODE(st.st_mode))
                elif effect.now == "symlink":
                    fs.write_symlink(parts, os.readlink(effect.path, dir_fd=top))
                elif stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
                    fs.make_node(parts, st.st_mode)
    finally:
        os.close(top)


def _read(top: int, path: str) -> bytes:
    fd = os.open(path, _READ, dir_fd=top)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
