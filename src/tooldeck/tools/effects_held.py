"""Held effects that wait with the session: kept as they were seen, landed later without running
the command again.

When a command's effects are held (see `effects`) and the run can wait for a decision
(`approvals.unattended: interrupt`), what the copy-on-write view caught is kept in the tooldeck
home (`held/<id>/`, out of every tool's reach): each changed path with what it became (a file's
bytes, a link's target, a folder) and what it was in the workspace when the command ran. The
pending approval names the bundle and the SHA-256 of its manifest, and is signed like a grant.
Approved later — in any process — the bundle lands as it was seen, all at once, through the
workspace's confined file access inside the call's checkpoint (so `tooldeck undo` reverses it);
if the workspace changed underneath any of its paths meanwhile, nothing lands and the refusal
names each path.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import stat
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.core import Workspace, current_checkpoint
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    from tooldeck.safety.sandbox.effects_view import Effects

_ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True, slots=True)
class HeldBundle:
    """Where held effects are kept, and the digest of their manifest (what a decision binds to)."""

    id: str
    digest: str
    folder: Path

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def folder_of(home: Path, bundle_id: str) -> Path:
    if not bundle_id or set(bundle_id) - _ID_CHARS:
        raise ToolError(f"not a held-effects id: {bundle_id!r}")
    return home / "held" / bundle_id


def fingerprint(root: Path, rel: str) -> str:
    """What a workspace path is now: absent, a folder, a link and its target, a file's SHA-256."""
    path = root / rel
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "absent"
    if stat.S_ISDIR(info.st_mode):
        return "folder"
    if stat.S_ISLNK(info.st_mode):
        return "symlink:" + os.readlink(path)
    if stat.S_ISREG(info.st_mode):
        with open(path, "rb") as fh:
            return "file:" + hashlib.file_digest(fh, "sha256").hexdigest()
    return f"other:{stat.S_IFMT(info.st_mode)}"


def keep(
    home: Path,
    workspace: Workspace,
    upper: str,
    effects: Effects,
    *,
    output: str,
    subject: str,
    unkept: Collection[str] = (),
) -> HeldBundle:
    """Keep `effects` (read from the view's layer `upper`) in the home; returns the bundle.
    `unkept`: the files whose earlier bytes the checkpoint cannot keep (part of what is approved)."""
    root = workspace.root
    entries: list[dict[str, Any]] = []
    for effect in effects.entries:
        entry: dict[str, Any] = {"path": effect.path, "was": effect.was, "now": effect.now}
        entry["before"] = fingerprint(root, effect.path)
        layer = os.path.join(upper, effect.path)
        if effect.now != "absent":
            info = os.lstat(layer)
            entry["mode"] = stat.S_IMODE(info.st_mode)
            if effect.now == "file":
                entry["bytes"] = base64.b64encode(Path(layer).read_bytes()).decode("ascii")
            elif effect.now == "symlink":
                entry["target"] = os.readlink(layer)
        entries.append(entry)
    manifest = {
        "workspace": str(root),
        "command": subject,
        "summary": effects.summary(done=True),
        "output": output,
        "entries": entries,
        "unkept": sorted(unkept),
    }
    data = json.dumps(manifest, ensure_ascii=True, sort_keys=True).encode("ascii")
    bundle_id = secrets.token_urlsafe(12)
    folder = folder_of(home, bundle_id)
    folder.mkdir(parents=True, mode=0o700)
    (folder / "manifest.json").write_bytes(data)
    return HeldBundle(bundle_id, hashlib.sha256(data).hexdigest(), folder)


def check_held(home: Path, workspace: Workspace, details: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest of the bundle a pending call names (`held`, `digest`), once it is sure to
    land as it was seen; else a `ToolError` saying why: the bundle is gone, altered, or of another
    workspace, or (`denied`) the workspace changed meanwhile under the paths it names (the agent
    answers the decision with a `DecisionError`, or the call with the error, carrying it)."""
    folder = folder_of(home, str(details.get("held")))
    try:
        data = (folder / "manifest.json").read_bytes()
    except OSError as exc:
        raise ToolError(f"the held effects are gone ({exc.strerror or exc})") from None
    if hashlib.sha256(data).hexdigest() != details.get("digest"):
        raise ToolError("the held effects were altered since they were kept; nothing was applied")
    manifest: dict[str, Any] = json.loads(data)
    if manifest["workspace"] != str(workspace.root):
        raise ToolError(f"the held effects belong to another workspace ({manifest['workspace']})")
    entries = manifest["entries"]
    changed = [e["path"] for e in entries if fingerprint(workspace.root, e["path"]) != e["before"]]
    if changed:
        raise ToolError(
            "the workspace changed since the command's effects were held, so they were not applied: "
            + ", ".join(changed),
            type="denied",
        )
    return manifest


def land_held(home: Path, workspace: Workspace, details: Mapping[str, Any]) -> tuple[str, str]:
    """Land the bundle a pending call names, as it was seen (see `check_held`), all or none;
    returns the command's output and what changed. Inside a checkpoint (`Checkpointed`), the
    landing is that checkpoint, as the command's effects are when they land at once."""
    manifest = check_held(home, workspace, details)
    with all_or_none("the held effects", unkept=manifest.get("unkept", ())):
        _apply(workspace, manifest["entries"])
    discard_held(home, details)
    return str(manifest["output"]), str(manifest["summary"])


@contextlib.contextmanager
def all_or_none(what: str, *, unkept: Collection[str] = ()) -> Iterator[None]:
    """Changes that land all at once: if one fails, those made before it are put back from the
    call's checkpoint (recorded with it, `unkept` the files approved to change without their
    bytes kept); a failure of the file system is the tool's error, saying so."""
    recording = current_checkpoint()
    if recording is not None:
        recording.unkept |= set(unkept)
    try:
        yield
    except BaseException as exc:
        if recording is not None:
            recording.rollback()
        if isinstance(exc, OSError):
            raise ToolError(
                f"{what} could not be applied ({exc.strerror or exc}: {exc.filename or ''}); "
                "what had been applied was put back, so the workspace is as it was before the call"
            ) from None
        raise


def discard_held(home: Path, details: Mapping[str, Any]) -> None:
    """Forget a bundle (its call was denied, or it landed)."""
    shutil.rmtree(folder_of(home, str(details.get("held"))), ignore_errors=True)


def _apply(workspace: Workspace, entries: list[dict[str, Any]]) -> None:
    """The entries applied in order (parents before children), through the confined file access."""
    fs = workspace.fs
    for entry in entries:
        parts = tuple(entry["path"].split("/"))
        was, now = entry["was"], entry["now"]
        if now == "absent":
            fs.remove_entry(parts)
            continue
        if was not in ("absent", now) or was == "symlink":
            fs.remove_entry(parts)
        if now == "folder":
            fs.make_folder(parts, int(entry["mode"]))
        elif now == "file":
            fs.write_atomic(parts, base64.b64decode(entry["bytes"]), mode=int(entry["mode"]))
        elif now == "symlink":
            fs.write_symlink(parts, str(entry["target"]))
