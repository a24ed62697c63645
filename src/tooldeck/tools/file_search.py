"""`search_files`: find text in files (regex) or files by name (glob), respecting `.gitignore`.

Uses ripgrep when it is installed (fast, and killed with its process group on timeout), and a
pure-Python walk otherwise; both skip hidden and git-ignored files and binary files, and both
print results sorted by path (and line), relative to the workspace root.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
from pathlib import Path
from typing import Annotated, Literal

from tooldeck.context import ToolContext
from tooldeck.decorator import Bounds, tool
from tooldeck.errors import ToolError
from tooldeck.tools.files import is_binary, missing, workspace_of
from tooldeck.tools.gitignore import walk
from tooldeck.workspace import Workspace

Backend = Literal["auto", "rg", "python"]
MAX_MATCH_CHARS = 300


@tool(toolset="file", read_only=True, idempotent=True)
def search_files(
    pattern: str,
    target: Literal["content", "files"] = "content",
    path: str = ".",
    file_glob: str | None = None,
    ignore_case: bool = False,
    limit: Annotated[int, Bounds(1, 1000)] = 50,
    offset: Annotated[int, Bounds(0)] = 0,
    context: ToolContext | None = None,
) -> str:
    """Search the workspace: `target="content"` finds lines matching a regex, `target="files"` finds
    files whose name matches a glob (e.g. `*.py`). Hidden and .gitignore'd files are skipped.

    Args:
        pattern: A regular expression (content) or a file-name glob (files).
        target: What to search: "content" or "files".
        path: Folder (or file) to search in, relative to the workspace root.
        file_glob: For content search, only files whose name matches this glob (e.g. "*.py").
        ignore_case: Match case-insensitively.
        limit: Maximum number of results to show.
        offset: Results to skip (for paging).
    """
    ws = workspace_of(context)
    hits = search(ws, pattern, target=target, path=path, file_glob=file_glob, ignore_case=ignore_case)
    if not hits:
        what = "lines matching" if target == "content" else "files named"
        return f"no {what} {pattern!r} under {path!r}"
    page = hits[offset : offset + limit]
    out = "\n".join(page)
    if offset + len(page) < len(hits):
        out += (
            f"\n... (showing results {offset + 1}-{offset + len(page)} of {len(hits)}; "
            f"search again with offset={offset + len(page)} for more)"
        )
    return out


def search(
    ws: Workspace,
    pattern: str,
    *,
    target: Literal["content", "files"] = "content",
    path: str = ".",
    file_glob: str | None = None,
    ignore_case: bool = False,
    backend: Backend = "auto",
) -> list[str]:
    """Every result line, sorted: `path:line:text` for content, `path` for files."""
    start = ws.resolve(path)
    if not start.exists():
        raise missing(ws, path, start)
    if target == "content":
        try:
            re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ToolError(f"invalid regular expression {pattern!r}: {exc}", retryable=True) from None
    rg = shutil.which("rg") if backend in ("auto", "rg") else None
    if backend == "rg" and rg is None:
        raise ToolError("ripgrep (rg) is not installed", type="unavailable")
    if rg is not None:
        return _rg(rg, ws, start, pattern, target, file_glob, ignore_case)
    return _python(ws, start, pattern, target, file_glob, ignore_case)


def _rg(
    rg: str, ws: Workspace, start: Path, pattern: str, target: str, file_glob: str | None, ignore_case: bool
) -> list[str]:
    rel = ws.display(start)
    argv = [rg, "--no-require-git", "--color", "never", "--no-config"]
    if target == "files":
        argv += ["--files", "--", rel]
    else:
        argv += ["--line-number", "--no-heading", "--with-filename", "--no-messages"]
        argv += ["-i"] if ignore_case else []
        argv += ["-g", file_glob] if file_glob else []
        argv += ["-e", pattern, "--", rel]
    from tooldeck.processes import run_process_sync  # asyncio & co: only when searching

    done = run_process_sync(argv, cwd=ws.root, timeout=60)
    if done.timed_out:
        raise ToolError(
            "the search took longer than 60 s and was stopped; narrow the path or pattern", type="timeout"
        )
    if done.returncode not in (0, 1):
        raise ToolError(f"search failed: {done.stderr.strip()[:500]}", retryable=True)
    lines = [ln.removeprefix("./") for ln in done.stdout.splitlines() if ln]
    if target == "files":
        return sorted(ln for ln in lines if _name_matches(ln, pattern, ignore_case))
    return [_clip(ln) for ln in sorted(lines, key=_content_key)]


def _python(
    ws: Workspace, start: Path, pattern: str, target: str, file_glob: str | None, ignore_case: bool
) -> list[str]:
    regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0) if target == "content" else None
    out: list[str] = []
    for file in walk(ws.root, start):
        name = ws.display(file)
        if target == "files":
            if _name_matches(name, pattern, ignore_case):
                out.append(name)
            continue
        if file_glob and not _name_matches(name, file_glob, False):
            continue
        if regex is None or is_binary(file):
            continue
        try:
            with file.open("r", encoding="utf-8", errors="replace") as fh:
                for number, line in enumerate(fh, start=1):
                    text = line.rstrip("\n").rstrip("\r")
                    if regex.search(text):
                        out.append(_clip(f"{name}:{number}:{text}"))
        except OSError:
            continue
    return sorted(out, key=_content_key) if target == "content" else sorted(out)


def _name_matches(rel: str, glob: str, ignore_case: bool) -> bool:
    """A glob without '/' matches the file name; with '/' the whole relative path."""
    subject = rel if "/" in glob else rel.rsplit("/", 1)[-1]
    if ignore_case:
        return fnmatch.fnmatch(subject.lower(), glob.lower())
    return fnmatch.fnmatchcase(subject, glob)


def _content_key(line: str) -> tuple[str, int]:
    name, _, rest = line.partition(":")
    number, _, _ = rest.partition(":")
    return (name, int(number) if number.isdigit() else 0)


def _clip(line: str) -> str:
    return line if len(line) <= MAX_MATCH_CHARS else line[:MAX_MATCH_CHARS] + " ... [truncated]"
