"""ripgrep as a proposer of candidate files for `search_files` (never the source of what is shown).

rg runs with its working folder set to the search folder through that folder's descriptor
(`/proc/self/fd/N`, resolved by the kernel to the folder itself, not to a path someone could
swap), with `--no-follow` and `--no-config`. Paths it prints are candidates: the caller opens
each through the confined file layer. A failure of rg (not installed, a regex only Python
understands, /proc missing) returns None and the caller walks the tree itself.
"""

from __future__ import annotations

import os
import shutil

from tooldeck.core import Workspace
from tooldeck.errors import Refused, ToolError

TIMEOUT_S = 60


def candidates(
    ws: Workspace,
    start: tuple[str, ...],
    target: str,
    pattern: str,
    glob: str | None,
    ignore_case: bool,
    *,
    required: bool = False,
) -> list[str] | None:
    """Paths relative to the workspace root that rg lists (files, or files with a match)."""
    rg = shutil.which("rg")
    if rg is None:
        if required:
            raise ToolError("ripgrep (rg) is not installed", type="unavailable")
        return None
    try:
        folder = ws.fs.open(start, os.O_PATH | os.O_DIRECTORY)
    except NotADirectoryError:
        return ["/".join(start)]  # one file: the caller reads it
    except (OSError, Refused):
        return None
    try:
        found = _run(rg, folder, start, target, pattern, glob, ignore_case)
        return None if found is None else [rel for rel in found if not ws.hides_relative(rel)]
    finally:
        os.close(folder)


def _run(
    rg: str,
    folder: int,
    start: tuple[str, ...],
    target: str,
    pattern: str,
    glob: str | None,
    ignore_case: bool,
) -> list[str] | None:
    argv = [rg, "--no-require-git", "--no-config", "--no-follow", "--no-messages", "--color", "never"]
    if target == "files":
        argv += ["--files"]
    else:
        argv += ["--files-with-matches", *(["-i"] if ignore_case else [])]
        # A glob naming folders is relative to the workspace root: the caller filters with it.
        argv += ["-g", glob] if glob and "/" not in glob else []
        argv += ["-e", pattern]
    argv += ["--", "."]
    from tooldeck._utils.processes import run_process_sync  # asyncio & co: only when searching

    try:
        done = run_process_sync(argv, cwd=f"/proc/self/fd/{folder}", timeout=TIMEOUT_S)
    except OSError:
        return None
    if done.timed_out:
        raise ToolError(
            f"the search took longer than {TIMEOUT_S} s and was stopped; narrow the path or pattern",
            type="timeout",
        )
    if done.returncode not in (0, 1):
        return None  # e.g. a regex rg's engine does not accept: the Python walk handles it
    prefix = "/".join(start)
    out = []
    for line in done.stdout.splitlines():
        rel = line.removeprefix("./")
        if rel:
            out.append(f"{prefix}/{rel}" if prefix else rel)
    return out
