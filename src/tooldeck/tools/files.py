"""File tools: `read_file`, `write_file`, `patch`, in the built-in toolset `file`.

All paths are confined to the workspace root (`sandbox.workspace`, see `tooldeck.workspace`) and
shown to the model relative to it. Writes are atomic: a temporary file in the same folder,
flushed and synced, then renamed over the target, so a reader never sees half a file.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path
from typing import Annotated

from tooldeck.context import ToolContext
from tooldeck.decorator import Bounds, tool
from tooldeck.errors import ToolError
from tooldeck.tool import Resource
from tooldeck.workspace import Workspace

MAX_LINE_CHARS = 2000
_BINARY_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".ico",
        ".webp",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".tar",
        ".so",
        ".dylib",
        ".dll",
        ".exe",
        ".bin",
        ".pyc",
        ".class",
        ".jar",
        ".o",
        ".a",
        ".wasm",
        ".mp3",
        ".mp4",
        ".mov",
        ".avi",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".sqlite",
        ".db",
    ]
)
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})


def workspace_of(context: ToolContext | None) -> Workspace:
    """The workspace a call may touch: the executor's, else one rooted at the context's path or cwd."""
    if context is not None:
        return context.get(Workspace) or Workspace.of(context.workspace)
    return Workspace.of(None)


def is_binary(path: Path) -> bool:
    """A NUL byte in the first 8 KiB (or a well-known binary suffix) means binary."""
    if path.suffix.lower() in _BINARY_SUFFIXES:
        return True
    with path.open("rb") as fh:
        return b"\x00" in fh.read(8192)


def missing(ws: Workspace, path: str, real: Path) -> ToolError:
    """A 'not found' failure that suggests similar names (siblings first, then same basename)."""
    hints: list[str] = []
    parent = real.parent
    while not parent.is_dir() and parent != ws.root:
        parent = parent.parent
    if parent.is_dir():
        siblings = [p.name for p in parent.iterdir()]
        hints += [
            ws.display(parent / n) for n in difflib.get_close_matches(real.name, siblings, n=3, cutoff=0.5)
        ]
    hints += [ws.display(p) for p in _same_name(ws.root, real.name) if ws.display(p) not in hints]
    hint = f"; did you mean: {', '.join(hints[:5])}?" if hints else ""
    return ToolError(f"file not found: {path!r}{hint}", retryable=True)


def _same_name(root: Path, name: str, budget: int = 5000) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
        budget -= len(filenames) + 1
        found += [Path(dirpath) / f for f in filenames if f.lower() == name.lower()]
        if budget <= 0 or len(found) >= 3:
            break
    return found


def _existing_text_file(ws: Workspace, path: str) -> Path:
    real = ws.resolve(path)
    if not real.exists():
        raise missing(ws, path, real)
    if real.is_dir():
        raise ToolError(
            f"{path!r} is a directory, not a file; list it with search_files(pattern='*', target='files', path={path!r})",
            retryable=True,
        )
    if is_binary(real):
        raise ToolError(f"{path!r} is a binary file ({real.stat().st_size} bytes); read_file only shows text")
    return real


@tool(toolset="file", read_only=True, idempotent=True, resource=Resource(arg="path", mode="read"))
def read_file(
    path: str,
    offset: Annotated[int, Bounds(1)] = 1,
    limit: Annotated[int, Bounds(1, 5000)] = 500,
    context: ToolContext | None = None,
) -> str:
    """Read a text file, with line numbers (`N|text`). Use offset/limit to page through long files.

    Args:
        path: File path, relative to the workspace root.
        offset: First line to show (1-based).
        limit: How many lines to show.
    """
    ws = workspace_of(context)
    real = _existing_text_file(ws, path)
    shown: list[str] = []
    total = 0
    with real.open("r", encoding="utf-8", errors="replace", newline=None) as fh:
        for total, line in enumerate(fh, start=1):
            if offset <= total < offset + limit:
                text = line.rstrip("\n")
                if len(text) > MAX_LINE_CHARS:
                    text = text[:MAX_LINE_CHARS] + " ... [line truncated]"
                shown.append(f"{total}|{text}")
    name = ws.display(real)
    if total == 0:
        return f"({name} is empty)"
    if not shown:
        raise ToolError(f"offset {offset} is past the end of {name} ({total} lines)", retryable=True)
    last = offset + len(shown) - 1
    if last < total:
        shown.append(
            f"... (showing lines {offset}-{last} of {total} in {name}; read_file with offset={last + 1} for more)"
        )
    return "\n".join(shown)


def atomic_write(target: Path, data: str) -> None:
    """Write `data` to `target` through a synced temporary file and a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@tool(toolset="file", destructive=True, resource=Resource(arg="path", mode="write"))
def write_file(path: str, content: str, context: ToolContext | None = None) -> str:
    """Write a whole file (created with its folders if needed, replaced if it exists).

    Args:
        path: File path, relative to the workspace root.
        content: The complete new content of the file.
    """
    ws = workspace_of(context)
    real = ws.resolve(path)
    if real.is_dir():
        raise ToolError(f"{path!r} is a directory; give a file path", retryable=True)
    existed = real.exists()
    atomic_write(real, content)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    size = len(content.encode("utf-8"))
    return f"{'replaced' if existed else 'created'} {ws.display(real)}: {size} bytes, {lines} lines"


@tool(toolset="file", destructive=True, resource=Resource(arg="path", mode="write"))
def patch(
    path: str, old_string: str, new_string: str, replace_all: bool = False, context: ToolContext | None = None
) -> str:
    """Replace text in a file: `old_string` must appear exactly once (unless replace_all is true).

    Args:
        path: File path, relative to the workspace root.
        old_string: The exact text to replace, with enough context to be unique.
        new_string: The text to put in its place.
        replace_all: Replace every occurrence instead of requiring exactly one.
    """
    ws = workspace_of(context)
    real = _existing_text_file(ws, path)
    name = ws.display(real)
    if not old_string:
        raise ToolError(
            "old_string is empty; to create or overwrite a whole file use write_file", retryable=True
        )
    if old_string == new_string:
        raise ToolError("old_string and new_string are identical; nothing to change", retryable=True)
    text = real.read_bytes().decode("utf-8", errors="replace")
    count = text.count(old_string)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {name} (0 matches){_near_miss(text, old_string)}", retryable=True
        )
    if count > 1 and not replace_all:
        lines = _match_lines(text, old_string)
        raise ToolError(
            f"old_string matches {count} times in {name} (at lines {', '.join(map(str, lines[:10]))}); "
            "include more surrounding text so it matches once, or set replace_all=true",
            retryable=True,
        )
    first_line = text[: text.index(old_string)].count("\n") + 1
    atomic_write(
        real, text.replace(old_string, new_string) if replace_all else text.replace(old_string, new_string, 1)
    )
    what = f"{count} occurrences" if count > 1 else f"1 occurrence at line {first_line}"
    return f"patched {name}: replaced {what}"


def _match_lines(text: str, needle: str) -> list[int]:
    out, start = [], 0
    while (i := text.find(needle, start)) != -1:
        out.append(text.count("\n", 0, i) + 1)
        start = i + 1
    return out


def _near_miss(text: str, needle: str) -> str:
    """A hint when the text matches after ignoring whitespace differences (a common model slip)."""
    if not needle.strip():
        return ""
    first = " ".join(needle.strip().splitlines()[0].split())
    for number, line in enumerate(text.splitlines(), start=1):
        if first in " ".join(line.split()):
            return f"; a similar line (differing in whitespace) is at line {number}: check indentation and line breaks"
    return "; check the exact text with read_file first"
