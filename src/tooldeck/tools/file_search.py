"""`search_files`: find text in files (regex) or files by name (glob), respecting `.gitignore`.

Which files: ripgrep when it is installed (its `.gitignore` handling is complete, and it is
fast), else a pure-Python walk (`gitignore.walk`); both skip hidden, ignored and binary files
and symlinks. What is shown: always read by tooldeck itself through the workspace's confined
file layer, never taken from rg's output. rg only proposes candidate paths (it runs with its
working folder set to the search folder's descriptor, `--no-follow`); a candidate that a
racing rename turned into a symlink out of the workspace is refused when opened, so nothing
outside the workspace can be shown, whatever happens to the tree meanwhile.
"""

from __future__ import annotations

import fnmatch
import os
import stat
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Literal

from tooldeck.core import Bounds, ToolContext, Workspace, tool
from tooldeck.errors import Refused, ToolError
from tooldeck.tools.fileio import binary_suffix, workspace_of
from tooldeck.tools.line_pattern import LinePattern, run_bounded, search_budget
from tooldeck.tools.textfile import SNIFF_BYTES, Codec, NotText, for_display, sniff

Backend = Literal["auto", "rg", "python"]
OutputMode = Literal["content", "files_only", "count"]
MAX_MATCH_CHARS = 300
MAX_PATTERN_CHARS = 10_000


@tool(toolset="file", read_only=True, idempotent=True, needs_workspace=True)
def search_files(
    pattern: str,
    target: Literal["content", "files"] = "content",
    path: str = ".",
    file_glob: str | None = None,
    ignore_case: bool = False,
    limit: Annotated[int, Bounds(1, 1000)] = 50,
    offset: Annotated[int, Bounds(0)] = 0,
    output_mode: OutputMode = "content",
    context: Annotated[int, Bounds(0, 20)] = 0,
    tool_context: ToolContext | None = None,
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
        output_mode: For content search: "content" (matching lines), "files_only" (paths of files
            with a match) or "count" (matches per file).
        context: For content search: lines of context to show before and after each match.
    """
    ws = workspace_of(tool_context)
    if target == "files":
        return _page(
            find_files(ws, pattern, path=path, ignore_case=ignore_case),
            offset,
            limit,
            "files named",
            pattern,
            path,
        )
    hits = grep(
        ws,
        pattern,
        path=path,
        file_glob=file_glob,
        ignore_case=ignore_case,
        context=context,
        budget_s=search_budget(tool_context),
        cancelled=tool_context.cancelled if tool_context is not None else None,
    )
    if output_mode == "files_only":
        return _page([h.path for h in hits], offset, limit, "files with lines matching", pattern, path)
    if output_mode == "count":
        total = sum(len(h.matches) for h in hits)
        rows = [f"{h.path}:{len(h.matches)}" for h in hits]
        out = _page(rows, offset, limit, "lines matching", pattern, path)
        lines, files = (
            f"{total} matching line{'s' if total != 1 else ''}",
            f"{len(hits)} file{'s' if len(hits) != 1 else ''}",
        )
        return out if not hits else f"{out}\n({lines} in {files})"
    matches = [(h, n) for h in hits for n in h.matches]
    if not matches:
        return f"no lines matching {pattern!r} under {path!r}"
    page = matches[offset : offset + limit]
    out = render(page, context) if page else f"(no results past offset {offset}; there are {len(matches)})"
    return out + _more(offset, len(page), len(matches))


def _page(rows: list[str], offset: int, limit: int, what: str, pattern: str, path: str) -> str:
    if not rows:
        return f"no {what} {pattern!r} under {path!r}"
    page = rows[offset : offset + limit]
    out = "\n".join(page) if page else f"(no results past offset {offset}; there are {len(rows)})"
    return out + _more(offset, len(page), len(rows))


def _more(offset: int, shown: int, total: int) -> str:
    if offset + shown >= total or not shown:
        return ""
    return (
        f"\n... (showing results {offset + 1}-{offset + shown} of {total}; "
        f"search again with offset={offset + shown} for more)"
    )


@dataclass(slots=True)
class FileHits:
    """The matches in one file: line numbers, and the text of those lines and their context."""

    path: str
    matches: list[int] = field(default_factory=list)
    lines: dict[int, str] = field(default_factory=dict)


def render(page: list[tuple[FileHits, int]], context: int) -> str:
    """`path:N:text` for matches; with context, `path-N-text` around them and `--` between runs."""
    if not context:
        return "\n".join(_clip(f"{h.path}:{n}:{h.lines[n]}") for h, n in page)
    out: list[str] = []
    previous: tuple[str, int] | None = None
    wanted: dict[str, set[int]] = {}
    order: list[FileHits] = []
    for hits, number in page:
        if hits.path not in wanted:
            wanted[hits.path] = set()
            order.append(hits)
        wanted[hits.path] |= {n for n in range(number - context, number + context + 1) if n in hits.lines}
    shown = {(h.path, n) for h, n in page}
    for hits in order:
        for number in sorted(wanted[hits.path]):
            if previous is not None and previous != (hits.path, number - 1):
                out.append("--")
            sep = ":" if (hits.path, number) in shown else "-"
            out.append(_clip(f"{hits.path}{sep}{number}{sep}{hits.lines[number]}"))
            previous = (hits.path, number)
    return "\n".join(out)


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
    if target == "files":
        return find_files(ws, pattern, path=path, ignore_case=ignore_case, backend=backend)
    hits = grep(ws, pattern, path=path, file_glob=file_glob, ignore_case=ignore_case, backend=backend)
    return [_clip(f"{h.path}:{n}:{h.lines[n]}") for h in hits for n in h.matches]


def grep(
    ws: Workspace,
    pattern: str,
    *,
    path: str = ".",
    file_glob: str | None = None,
    ignore_case: bool = False,
    backend: Backend = "auto",
    context: int = 0,
    budget_s: float | None = None,
    cancelled: threading.Event | None = None,
) -> list[FileHits]:
    """The files with lines matching `pattern` (sorted by path), each with its matches.

    Matching stops with a ToolError once it has spent `budget_s` seconds (default: the default
    call timeout, less a margin) or once `cancelled` is set."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(
            f"pattern is {len(pattern):,} characters; the limit is {MAX_PATTERN_CHARS:,}", retryable=True
        )
    regex = LinePattern(pattern, ignore_case=ignore_case, budget_s=budget_s)
    start = _start(ws, path)

    def scan_all() -> list[FileHits]:
        out: list[FileHits] = []
        for rel, opener in _files(ws, start, "content", pattern, file_glob, ignore_case, backend):
            if file_glob and not name_matches(rel, file_glob, False):
                continue
            found = _scan(rel, opener, regex, context)
            if found is not None:
                out.append(found)
        return sorted(out, key=lambda h: h.path)

    return run_bounded(scan_all, regex, cancelled)


def find_files(
    ws: Workspace, pattern: str, *, path: str = ".", ignore_case: bool = False, backend: Backend = "auto"
) -> list[str]:
    start = _start(ws, path)
    names = {rel for rel, _ in _files(ws, start, "files", pattern, None, ignore_case, backend)}
    return sorted(n for n in names if name_matches(n, pattern, ignore_case))


def _start(ws: Workspace, path: str) -> tuple[str, ...]:
    parts = ws.parts(path)
    with ws.errors(path, parts):
        ws.fs.stat(parts)
    return parts


def _files(
    ws: Workspace,
    start: tuple[str, ...],
    target: str,
    pattern: str,
    glob: str | None,
    ignore_case: bool,
    backend: Backend,
) -> Iterator[tuple[str, Callable[[], int]]]:
    """(path, opener) for each candidate file; openers return a read descriptor or raise."""
    from tooldeck.tools.ripgrep import candidates

    # rg reads files as UTF-8: a pattern with other characters could miss a Latin-1 file.
    if backend == "rg" or (backend == "auto" and (target == "files" or pattern.isascii())):
        found = candidates(ws, start, target, pattern, glob, ignore_case, required=backend == "rg")
        if found is not None:
            for rel in found:
                yield rel, _confined_opener(ws, rel)
            return
    from tooldeck.tools.gitignore import walk

    with ws.errors(ws.display(start), start):
        for item in walk(ws.fs, start):
            yield item.path, item.open


def _confined_opener(ws: Workspace, rel: str) -> Callable[[], int]:
    return lambda: ws.fs.open(tuple(rel.split("/")), os.O_RDONLY | os.O_NONBLOCK)


def _scan(rel: str, opener: Callable[[], int], regex: LinePattern, context: int) -> FileHits | None:
    """The matches in one file, read through `opener`; None for no match, binary or unreadable."""
    if binary_suffix(tuple(rel.rsplit("/", 1))):
        return None
    try:
        fd = opener()
    except (OSError, Refused):
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            codec = sniff(fh.read(SNIFF_BYTES))
        except NotText:
            return None
        fh.seek(0)
        hits = FileHits(rel)
        before: deque[tuple[int, str]] = deque(maxlen=context)
        after = 0
        for number, raw in enumerate(fh, start=1):
            text = _decode(codec, raw, number)
            if regex.search(text):
                hits.matches.append(number)
                hits.lines.update(before)
                hits.lines[number] = text
                before.clear()
                after = context
            elif after:
                hits.lines[number] = text
                after -= 1
            elif context:
                before.append((number, text))
    return hits if hits.matches else None


def _decode(codec: Codec, raw: bytes, number: int) -> str:
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = codec.decode(raw)
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return for_display(text.rstrip("\n").removesuffix("\r"))


def name_matches(rel: str, glob: str, ignore_case: bool) -> bool:
    """A glob without '/' matches the file name; with '/' the whole relative path."""
    subject = rel if "/" in glob else rel.rsplit("/", 1)[-1]
    if ignore_case:
        return fnmatch.fnmatch(subject.lower(), glob.lower())
    return fnmatch.fnmatchcase(subject, glob)


def _clip(line: str) -> str:
    return line if len(line) <= MAX_MATCH_CHARS else line[:MAX_MATCH_CHARS] + " ... [truncated]"
