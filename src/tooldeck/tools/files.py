"""File tools: `read_file`, `write_file`, `patch`, in the built-in toolset `file`.

All paths are confined to the workspace root (`sandbox.workspace`, see `tooldeck._core.workspace`)
and shown to the model relative to it; every open goes through the workspace's descriptor-based
file layer, so no symlink race can lead them outside. Writes are atomic (a synced temporary
file renamed over the target) and keep the file's permissions, encoding, byte-order mark and
line endings. How `patch` finds and fits its edit: `tools/editing.py`; its multi-file `patch`
mode: `tools/v4a.py`.
"""

from __future__ import annotations

import itertools
import re
from functools import partial
from typing import TYPE_CHECKING, Literal

from tooldeck.core import PathChange, Resource, ToolContext, Workspace, tool
from tooldeck.errors import ToolError
from tooldeck.tools.consent import require_consent
from tooldeck.tools.fileio import encode_for, existing_style, load_text, workspace_of
from tooldeck.tools.textfile import Codec, bad_character

if TYPE_CHECKING:
    from tooldeck.tools.editing import Edited

MAX_WRITE_BYTES = 10 * 1024 * 1024
MAX_EDIT_CHARS = 1024 * 1024
_NUMBERED = re.compile(r"^\s*(\d+)\|")

__all__ = ["patch", "read_file", "workspace_of", "write_file"]


@tool(
    toolset="file",
    read_only=True,
    idempotent=True,
    resource=Resource(arg="path", mode="read"),
    needs_workspace=True,
)
def read_file(
    path: str,
    offset: int = 1,
    limit: int = 500,
    context: ToolContext | None = None,
) -> str:
    """Read a text file, with line numbers (`N|text`). Use offset/limit to page through long files.

    Notes after the lines flag what matters for editing: a file that is not UTF-8 (shown decoded
    as Latin-1), bytes that are not valid UTF-8, unresolved merge-conflict markers.

    Args:
        path: File path, relative to the workspace root.
        offset: First line to show (1-based); a value below 1 reads from line 1.
        limit: How many lines to show, 1 to 5000; a value outside that range is brought within it.
    """
    from tooldeck.tools.reading import read_page

    return read_page(workspace_of(context), path, offset, limit)


@tool(
    toolset="file",
    destructive=True,
    approval="allow",
    resource=Resource(arg="path", mode="write"),
    needs_workspace=True,
)
def write_file(path: str, content: str, context: ToolContext | None = None) -> str:
    """Write a whole file (created with its folders if needed, replaced if it exists).

    An existing file keeps its permissions, encoding and line endings. Use patch for edits.

    Args:
        path: File path, relative to the workspace root.
        content: The complete new content of the file.
    """
    ws = workspace_of(context)
    parts = ws.parts(path)
    if not parts or path.strip().endswith(("/", "/.")):
        raise ToolError(
            f"path {path!r} names a folder, not a file; give the file's path (e.g. "
            f"{ws.display((*parts, 'notes.txt'))!r})",
            retryable=True,
        )
    check_text(content, what="content", cap=MAX_WRITE_BYTES)
    if looks_like_read_output(content):
        raise ToolError(
            "content looks like read_file output (its lines start with 'N|' line numbers); write the file's "
            "own text, without the line-number prefixes",
            retryable=True,
        )
    name = ws.display(parts)
    change = PathChange("file", content.encode("utf-8", "surrogatepass"))
    approved = require_consent(context, ws, parts, action="writing", change=change)
    with ws.locked([parts]), ws.errors(path, parts):
        style = existing_style(ws, parts)
        codec, endings = style if style is not None else (Codec(), "lf")
        text = content.replace("\n", "\r\n") if endings == "crlf" and "\r\n" not in content else content
        try:
            data = codec.encode(text)
        except UnicodeEncodeError:
            codec = Codec("utf-8", codec.bom)
            data = codec.encode(text)
        existed = ws.fs.write_atomic(parts, data, guard=ws.guard(parts, approved))
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    kept = [
        f"its {codec.name} encoding" if codec.encoding != "utf-8" else "",
        "its byte-order mark" if codec.bom else "",
    ]
    kept.append("its CRLF line endings" if text is not content else "")
    notes = f" (kept {', '.join(k for k in kept if k)})" if style is not None and any(kept) else ""
    if style is not None and style[0].encoding != codec.encoding:
        notes += f" (it was {style[0].name}; now UTF-8, since the new content needs characters {style[0].name} lacks)"
    return f"{'replaced' if existed else 'created'} {name}: {len(data)} bytes, {lines} line{'s' if lines != 1 else ''}{notes}"


@tool(
    toolset="file",
    destructive=True,
    approval="allow",
    resource=Resource(arg="path", mode="write"),
    needs_workspace=True,
)
def patch(
    mode: Literal["replace", "patch"] = "replace",
    path: str | None = None,
    old_string: str | None = None,
    new_string: str | None = None,
    replace_all: bool = False,
    patch: str | None = None,
    context: ToolContext | None = None,
) -> str:
    """Edit files. mode="replace" (default): replace `old_string` in `path` with `new_string`;
    old_string must match one place (or set replace_all). Small differences are tolerated and
    reported (indentation, whitespace, line endings, typographic quotes and dashes, `\\n`
    typed as text); the replacement is re-indented to the file. mode="patch": apply a V4A
    multi-file patch (`*** Begin Patch` / `*** Update File: path` / `@@ hint @@` / ` context` /
    `-removed` / `+added` / `*** Add File:` / `*** Delete File:` / `*** Move File: a -> b` /
    `*** End Patch`); all of it applies, or nothing does.

    Args:
        mode: "replace" (path, old_string, new_string) or "patch" (patch).
        path: For replace: file path, relative to the workspace root.
        old_string: For replace: the text to replace, with enough surrounding lines to be unique.
        new_string: For replace: the text to put in its place ("" deletes old_string).
        replace_all: For replace: replace every occurrence instead of requiring exactly one.
        patch: For mode="patch": the V4A patch text.
    """
    ws = workspace_of(context)
    if mode == "patch":
        if not patch:
            raise ToolError(
                "mode='patch' needs the patch text in `patch`", type="invalid_arguments", retryable=True
            )
        check_text(patch, what="patch", cap=2 * MAX_EDIT_CHARS)
        from tooldeck.tools.v4a import apply_patch

        return apply_patch(ws, patch, consent=partial(require_consent, context, ws))
    if path is None or old_string is None or new_string is None:
        missing = [
            n
            for n, v in (("path", path), ("old_string", old_string), ("new_string", new_string))
            if v is None
        ]
        raise ToolError(
            f"mode='replace' needs path, old_string and new_string (missing: {', '.join(missing)})",
            type="invalid_arguments",
            retryable=True,
        )
    for what, text in (("old_string", old_string), ("new_string", new_string)):
        check_text(text, what=what, cap=MAX_EDIT_CHARS)
    return replace_in_file(ws, path, old_string, new_string, replace_all=replace_all, context=context)


def replace_in_file(
    ws: Workspace, path: str, old: str, new: str, *, replace_all: bool, context: ToolContext | None = None
) -> str:
    """The replace mode of `patch`: load, edit (or refuse with the reason), write atomically."""
    from tooldeck.tools.editing import EditError, replace

    parts = ws.parts(path)
    name = ws.display(parts)

    def change() -> PathChange:  # what the file would hold, for a class judged by content
        try:
            loaded = load_text(ws, path, parts, tool="patch")
            edited = replace(loaded.text, old, new, replace_all=replace_all)
            return PathChange("file", encode_for(loaded.codec, edited.text, path=path))
        except (ToolError, EditError):
            return PathChange("file")  # the edit fails below, with its own message

    approved = require_consent(context, ws, parts, action="editing", change=change)
    with ws.locked([parts]):
        loaded = load_text(ws, path, parts, tool="patch")
        try:
            edited = replace(loaded.text, old, new, replace_all=replace_all)
        except EditError as exc:
            raise ToolError(f"{name}: {exc}", retryable=True) from None
        data = encode_for(loaded.codec, edited.text, path=path)
        with ws.errors(path, parts):
            ws.fs.write_atomic(parts, data, mode=loaded.mode, guard=ws.guard(parts, approved))
    return describe(name, edited, loaded.text)


def describe(name: str, edited: Edited, before: str) -> str:
    """The success message: where, how it matched, and a short diff when the match was not exact."""
    where = f"{edited.count} occurrences" if edited.count > 1 else f"1 occurrence at line {edited.lines[0]}"
    how = "matched exactly" if edited.strategy == "exact" else f"matched by {edited.strategy}"
    out = f"patched {name}: replaced {where} ({how})"
    if edited.notes:
        out += "; " + "; ".join(edited.notes)
    if edited.strategy != "exact":
        out += "\n" + short_diff(before, edited.text, name)
    return out


def short_diff(before: str, after: str, name: str, max_lines: int = 40) -> str:
    """A unified diff of the changed region only: the common head and tail are found by
    comparing the texts (in C) first, so a one-line edit in a long file costs what the edit
    costs, not the file."""
    from difflib import SequenceMatcher

    head = _common_prefix(before, after)
    tail = _common_suffix(before, after, min(len(before), len(after)) - head)
    start = before.rfind("\n", 0, before.rfind("\n", 0, head) if head else 0) + 1  # one line of context
    first = before.count("\n", 0, start)
    ends = [_line_after(text, len(text) - tail) for text in (before, after)]
    a, b = before[start : ends[0]].splitlines(), after[start : ends[1]].splitlines()
    out = [f"--- a/{name}", f"+++ b/{name}"]
    for group in SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(1):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{first + i1 + 1},{i2 - i1} +{first + j1 + 1},{j2 - j1} @@")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [f" {line}" for line in a[x1:x2]]
            else:
                out += [f"-{line}" for line in a[x1:x2]] + [f"+{line}" for line in b[y1:y2]]
    if len(out) > max_lines:
        out = [*out[:max_lines], f"... ({len(out) - max_lines} more diff lines)"]
    return "\n".join(out)


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix: equal blocks skipped whole, then bisection in the first
    block that differs (slice comparisons run at memcmp speed; nothing is copied twice)."""
    size, at, step = min(len(a), len(b)), 0, 4096
    while at < size and a[at : at + step] == b[at : at + step]:
        at += step
    low, high = at, min(at + step, size)
    while low < high:
        mid = (low + high + 1) // 2
        if a[at:mid] == b[at:mid]:
            low = mid
        else:
            high = mid - 1
    return min(low, size)


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix, at most `limit` (so it never overlaps the common prefix)."""
    done, step = 0, 4096
    while (
        done < limit
        and a[len(a) - min(done + step, limit) : len(a) - done]
        == b[len(b) - min(done + step, limit) : len(b) - done]
    ):
        done = min(done + step, limit)
    if done >= limit:
        return limit
    low, high = done, min(done + step, limit)
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - done] == b[len(b) - mid : len(b) - done]:
            low = mid
        else:
            high = mid - 1
    return low


def _line_after(text: str, at: int) -> int:
    """The end of the line after the one holding offset `at` (one line of context)."""
    end = text.find("\n", at)
    if end == -1:
        return len(text)
    following = text.find("\n", end + 1)
    return len(text) if following == -1 else following


def check_text(text: str, *, what: str, cap: int) -> None:
    """Refuse model-supplied text that cannot go into a text file, or is too large."""
    if not isinstance(text, str):
        raise ToolError(f"{what} must be a string", type="invalid_arguments", retryable=True)
    if len(text) > cap:
        raise ToolError(
            f"{what} is {len(text):,} characters; the limit is {cap:,}. Split the change into smaller edits",
            retryable=True,
        )
    problem = bad_character(text, what=what)
    if problem:
        raise ToolError(problem, type="invalid_arguments", retryable=True)


def looks_like_read_output(content: str) -> bool:
    """Whether `content` is read_file's display (`N|text` lines with consecutive numbers)."""
    lines = [line for line in content.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    numbers = [int(m.group(1)) for line in lines if (m := _NUMBERED.match(line))]
    if len(numbers) < 2 or len(numbers) < 0.6 * len(lines):
        return False
    return all(b == a + 1 for a, b in itertools.pairwise(numbers))
