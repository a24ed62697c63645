"""`patch(mode="patch")`: V4A multi-file patches (the format Codex and Cline models write).

    *** Begin Patch
    *** Update File: src/app.py
    @@ def main @@            (optional hint: narrows where a hunk applies)
     context line
    -removed line
    +added line
    *** Add File: docs/new.md
    +content
    *** Delete File: old.txt
    *** Move File: a.txt -> b/a.txt
    *** Update File: b.txt   (renamed while updated: `Move to` right after the Update line,
    *** Move to: c/b.txt      with hunks or none)
    *** End Patch

Everything is checked before anything is written: every path confined to the workspace, every
hunk located (with the same strategy chain as replace mode, one place each), an Add onto an
existing file or a move onto one refused. Only then are the files written, each atomically.
A marker line starts at column 0 with `***`; patch text that mentions a marker has a `+`, `-`
or space in front, so it is never mistaken for one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from tooldeck.core import PathChange, Workspace
from tooldeck.errors import ToolError
from tooldeck.tools.editing import Ambiguous, Edited, EditError, replace
from tooldeck.tools.fileio import encode_for, load_text
from tooldeck.tools.textfile import Codec

_HEADER = re.compile(r"^\*\*\*\s*(Update|Add|Delete|Move)\s+File:\s*(.+?)\s*$")
_MOVE = re.compile(r"^(.+?)\s*->\s*(.+)$")
_MOVE_TO = re.compile(r"^\*\*\*\s*Move\s+to:\s*(.*?)\s*$")
_HUNK = re.compile(r"^@@\s*(.*?)\s*(?:@@)?\s*$")
OpKind = Literal["update", "add", "delete", "move"]
_KINDS: dict[str, OpKind] = {"update": "update", "add": "add", "delete": "delete"}


# Asked before a patch changes a path: returns when it may, raises ToolError otherwise.
# Asks about changing a path; returns the resolved paths approved (none when not protected).
Consent = Callable[..., tuple[str, ...]]
_ACTIONS: dict[OpKind, str] = {"update": "editing", "add": "creating", "delete": "deleting", "move": "moving"}


class PatchError(Exception):
    """The patch text cannot be read; the message names the line."""


@dataclass
class Hunk:
    hint: str | None
    lines: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", text)

    def sides(self) -> tuple[str, str]:
        """The text the hunk looks for, and what it puts in its place."""
        old = [t for p, t in self.lines if p != "+"]
        new = [t for p, t in self.lines if p != "-"]
        return "\n".join(old), "\n".join(new)


@dataclass
class Op:
    kind: OpKind
    path: str
    dest: str | None = None
    hunks: list[Hunk] = field(default_factory=list)


def parse(text: str) -> list[Op]:
    lines = text.replace("\r\n", "\n").split("\n")
    begin = next((i for i, line in enumerate(lines) if line.strip() == "*** Begin Patch"), -1)
    ops: list[Op] = []
    for number, line in enumerate(lines[begin + 1 :], start=begin + 2):
        if line.rstrip() == "*** End Patch":
            break
        if line.startswith("***") and _MOVE_TO.match(line):
            _move_to(ops, line, number)
        elif line.startswith("***"):
            ops.append(_header(line, number))
        elif not ops:
            if line.strip():
                raise PatchError(
                    f"line {number}: expected a '*** Update/Add/Delete/Move File:' line, got {line[:80]!r}"
                )
        elif (hunk := _HUNK.match(line)) and line.startswith("@@"):
            ops[-1].hunks.append(Hunk(hunk.group(1) or None))
        else:
            _body(ops[-1], line, number)
    for op in ops:
        if op.kind == "update" and op.dest is None and not any(h.lines for h in op.hunks):
            raise PatchError(f"*** Update File: {op.path} has no hunks (lines starting with ' ', '-' or '+')")
    return ops


def _header(line: str, number: int) -> Op:
    match = _HEADER.match(line)
    if match is None:
        raise PatchError(f"line {number}: unknown patch line {line[:80]!r}")
    kind, target = match.group(1).lower(), match.group(2)
    if kind == "move":
        move = _MOVE.match(target)
        if move is None:
            raise PatchError(f"line {number}: '*** Move File:' needs 'source -> destination'")
        return Op("move", move.group(1).strip(), move.group(2).strip())
    return Op(_KINDS[kind], target)


def _move_to(ops: list[Op], line: str, number: int) -> None:
    """`*** Move to: dest` renames the file of the `*** Update File:` line just above it."""
    match = _MOVE_TO.match(line)
    assert match is not None
    last = ops[-1] if ops else None
    if last is None or last.kind != "update" or last.hunks or last.dest is not None:
        raise PatchError(f"line {number}: '*** Move to:' must come right after an '*** Update File:' line")
    if not match.group(1):
        raise PatchError(f"line {number}: '*** Move to:' needs the new path")
    last.dest = match.group(1)


def _body(op: Op, line: str, number: int) -> None:
    if op.kind in ("delete", "move"):
        if line.strip():
            raise PatchError(f"line {number}: *** {op.kind.title()} File takes no content lines")
        return
    if line.startswith("\\"):
        return  # "\ No newline at end of file"
    prefix, body = (line[0], line[1:]) if line[:1] in (" ", "-", "+") else (" ", line)
    if op.kind == "add" and prefix != "+" and line:
        raise PatchError(f"line {number}: lines of an added file start with '+'")
    if op.kind == "add" and not line:
        return
    if not op.hunks:
        op.hunks.append(Hunk(None))
    op.hunks[-1].lines.append((prefix, body))


@dataclass
class _File:
    """One file as the patch leaves it so far (text loaded only when a hunk needs it)."""

    exists: bool
    text: str | None = None
    codec: Codec = field(default_factory=Codec)
    mode: int | None = None


Action = tuple[Literal["write", "rename", "unlink"], tuple[str, ...], object]


class _Plan:
    """The patch applied to an in-memory view of the files; the actions that make it real."""

    def __init__(self, ws: Workspace, paths: dict[str, tuple[str, ...]]) -> None:
        self.ws, self.paths = ws, paths
        self.files: dict[tuple[str, ...], _File] = {}
        self.actions: list[Action] = []

    def file(self, path: str, *, text: bool) -> _File:
        parts = self.paths[path]
        with self.ws.errors(path, parts):
            state = self.files.get(parts)
            if state is None:
                state = self.files[parts] = _File(self.ws.fs.exists(parts))
            if text and state.exists and state.text is None:
                loaded = load_text(self.ws, path, parts, tool="patch")
                state.text, state.codec, state.mode = loaded.text, loaded.codec, loaded.mode
        return state

    def op(self, op: Op) -> str:
        """Apply `op` to the view; a line saying what it did."""
        parts, name = self.paths[op.path], self.ws.display(self.paths[op.path])
        state = self.file(op.path, text=op.kind == "update")
        if op.kind == "add":
            if state.exists:
                raise ToolError(
                    "already exists; an Add File would overwrite it (use Update File, or Delete it first)"
                )
            state.exists, state.text = (
                True,
                "\n".join(t for _, t in (op.hunks[0].lines if op.hunks else [])) + "\n",
            )
            self.actions.append(("write", parts, encode_for(state.codec, state.text, path=op.path)))
            return f"added {name}"
        if not state.exists:
            raise ToolError("file not found")
        if op.kind == "delete":
            self.files[parts] = _File(False)
            self.actions.append(("unlink", parts, None))
            return f"deleted {name}"
        if op.kind == "move":
            return f"moved {name} -> {self.move(op, state)}"
        strategies = [_hunk(state, hunk, index) for index, hunk in enumerate(op.hunks, start=1) if hunk.lines]
        assert state.text is not None
        if strategies and not any(strategies):
            raise ToolError("its hunks change nothing (only context lines, no '-' or '+' lines)")
        moved = self.move(op, state) if op.dest is not None else None
        if not strategies:
            return f"moved {name} -> {moved}"  # `Move to` without hunks: a plain rename
        where = self.paths[op.dest] if op.dest is not None else parts
        self.actions.append(("write", where, encode_for(state.codec, state.text, path=op.path)))
        how = ", ".join(dict.fromkeys(s for s in strategies if s))
        also = f" and moved it to {moved}" if moved else ""
        return f"updated {name} ({len(strategies)} hunk{'s' if len(strategies) != 1 else ''}; {how}){also}"

    def change_of(self, parts: tuple[str, ...]) -> PathChange:
        """What `parts` becomes when the patch is applied (for a class judged by content)."""
        for kind, where, arg in reversed(self.actions):
            if kind == "write" and where == parts:
                return PathChange("file", arg if isinstance(arg, bytes) else None)
            if kind == "unlink" and where == parts:
                return PathChange("absent")
            if kind == "rename" and parts in (where, arg):
                return PathChange("absent" if where == parts else "file")
        return PathChange("file")

    def move(self, op: Op, state: _File) -> str:
        """Rename `op.path` to `op.dest` in the view (never onto an existing file); the new name."""
        assert op.dest is not None
        dest = self.paths[op.dest]
        if self.file(op.dest, text=False).exists:
            raise ToolError(f"cannot move onto {op.dest!r}: it already exists")
        self.files[dest], self.files[self.paths[op.path]] = state, _File(False)
        self.actions.append(("rename", self.paths[op.path], dest))
        return self.ws.display(dest)

    def run(self, approved: tuple[str, ...] | None) -> None:
        """Make the view real, in the patch's order; each write is atomic. With `approved` (the
        protected paths consented to), a change that now leads elsewhere protected is refused."""
        for kind, parts, arg in self.actions:
            name = self.ws.display(parts)
            guard = self.ws.guard(parts, approved) if approved is not None else None
            try:
                with self.ws.errors(name, parts):
                    if kind == "write":
                        assert isinstance(arg, bytes)
                        self.ws.fs.write_atomic(
                            parts, arg, mode=self.files.get(parts, _File(True)).mode, guard=guard
                        )
                    elif kind == "rename":
                        assert isinstance(arg, tuple)
                        self.ws.fs.rename(parts, arg, guard=guard)
                    else:
                        self.ws.fs.unlink(parts, guard=guard)
            except ToolError as exc:
                raise ToolError(
                    f"the patch was checked but failed while writing {name} (files before it were changed; "
                    f"check them with read_file): {exc}",
                    type="denied" if exc.type == "denied" else "tool_error",
                ) from None


def apply_patch(ws: Workspace, text: str, *, consent: Consent | None = None) -> str:
    """Apply a V4A patch, all or nothing; `consent` is asked about each path the patch changes
    (raising refuses the whole patch)."""
    try:
        ops = parse(text)
    except PatchError as exc:
        raise ToolError(f"cannot read the patch: {exc}", retryable=True) from None
    if not ops:
        raise ToolError("the patch has no '*** Update/Add/Delete/Move File:' sections", retryable=True)
    paths = {op.path: ws.parts(op.path) for op in ops} | {op.dest: ws.parts(op.dest) for op in ops if op.dest}
    with ws.locked(paths.values()):
        plan = _Plan(ws, paths)
        errors: list[str] = []
        done: list[str] = []
        for op in ops:
            try:
                done.append(plan.op(op))
            except (ToolError, EditError) as exc:
                errors.append(f"{op.path}: {exc}")
        if errors:
            raise ToolError(
                "Patch validation failed (no files were modified):\n" + "\n".join(f"  - {e}" for e in errors),
                retryable=True,
            )
        approved: list[str] = []
        for op in ops if consent is not None else ():
            assert consent is not None
            action = "moving" if op.dest else _ACTIONS[op.kind]
            approved += consent(paths[op.path], action=action, change=plan.change_of(paths[op.path]))
            if op.dest:
                dest = paths[op.dest]
                approved += consent(dest, action="moving a file onto", change=plan.change_of(dest))
        plan.run(tuple(approved) if consent is not None else None)
    return "applied patch:\n" + "\n".join(f"  {line}" for line in done)


def _hunk(state: _File, hunk: Hunk, index: int) -> str:
    """Apply one hunk to `state.text`; the strategy that matched (or '' for an inert hunk)."""
    assert state.text is not None
    old, new = hunk.sides()
    label = f"hunk {index}" + (f" ({hunk.hint!r})" if hunk.hint else "")
    if old == new:
        return ""
    if not any(p != "+" for p, _ in hunk.lines):
        state.text = _insert(state.text, new, hunk.hint, label)
        return "inserted"
    try:
        edited = replace(state.text, old, new)
    except Ambiguous as exc:
        if not hunk.hint:
            raise _ambiguous(label, exc) from None
        edited = _after_hint(state.text, old, new, hunk.hint, label)
    except EditError as exc:
        raise EditError(f"{label} not found: {exc}") from None
    state.text = edited.text
    return edited.strategy


def _after_hint(text: str, old: str, new: str, hint: str, label: str) -> Edited:
    """A hunk that matches several places: look only after the (unique) hint line."""
    at = _unique(text, hint, label)
    start = text.rfind("\n", 0, at) + 1
    try:
        tail = replace(text[start:], old, new)
    except Ambiguous as exc:
        raise _ambiguous(f"{label}, after its hint,", exc) from None
    except EditError as exc:
        raise EditError(f"{label}: {exc}") from None
    return Edited(text[:start] + tail.text, tail.count, tail.strategy, tail.lines, tail.notes)


def _ambiguous(label: str, exc: Ambiguous) -> EditError:
    return EditError(
        f"{label} matches {exc.count} places{exc.how}, {exc.where}; add unchanged context lines "
        "around the change, or an '@@ ...' line naming a unique line above it, so it matches once"
    )


def _unique(text: str, hint: str, label: str) -> int:
    count = text.count(hint)
    if count != 1:
        raise EditError(
            f"{label}: the hint {hint!r} occurs {count} times; it must occur once to place the hunk"
        )
    return text.find(hint)


def _insert(text: str, new: str, hint: str | None, label: str) -> str:
    """An addition-only hunk: after the line holding the hint, or at the end without a hint."""
    if hint is None:
        return (text if text.endswith("\n") or not text else text + "\n") + new + "\n"
    at = _unique(text, hint, label)
    end = text.find("\n", at)
    if end == -1:
        return text + "\n" + new + "\n"
    return text[: end + 1] + new + "\n" + text[end + 1 :]
