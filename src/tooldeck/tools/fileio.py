"""Reading and writing text files of the workspace for the file tools, through `Workspace.fs`.

Only regular files are opened (a FIFO would block, a device is not a file); the open is
non-blocking and checked with `fstat` on the descriptor itself, so a path swapped after the
open cannot change what is read. Whole-file loads (for edits) are capped.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from tooldeck._utils.fds import read_up_to
from tooldeck.core import ToolContext, Workspace
from tooldeck.errors import ToolError
from tooldeck.tools.textfile import SNIFF_BYTES, Codec, NotText, decode, line_endings, sniff

MAX_EDIT_BYTES = 16 * 1024 * 1024
BINARY_SUFFIXES = frozenset(
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


def workspace_of(context: ToolContext | None) -> Workspace:
    """The workspace a call may touch: the executor's, else one rooted at the context's path or cwd."""
    if context is not None:
        return context.get(Workspace) or Workspace.of(context.workspace)
    return Workspace.of(None)


def open_regular(ws: Workspace, path: str, parts: tuple[str, ...]) -> tuple[int, os.stat_result]:
    """A read descriptor of the regular file `parts` and its stat; ToolError otherwise."""
    with ws.errors(path, parts):
        fd = ws.fs.open(parts, os.O_RDONLY | os.O_NONBLOCK)
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode):
        return fd, info
    os.close(fd)
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(
            f"{path!r} is a directory, not a file; list it with search_files(pattern='*', target='files', path={path!r})",
            retryable=True,
        )
    raise ToolError(
        f"{path!r} is not a regular file (a pipe, socket or device); file tools read regular files only"
    )


def read_bytes(ws: Workspace, path: str, limit: int) -> bytes:
    """The bytes of the regular file at workspace path `path` (confined); ToolError when it is
    missing, not a regular file, or larger than `limit` bytes."""
    parts = ws.parts(path)
    fd, info = open_regular(ws, path, parts)
    try:
        if info.st_size > limit:
            raise ToolError(f"{path!r} is {info.st_size} bytes, more than the {limit} allowed here")
        return read_up_to(fd, limit)
    finally:
        os.close(fd)


def binary_suffix(parts: tuple[str, ...]) -> bool:
    return bool(parts) and os.path.splitext(parts[-1])[1].lower() in BINARY_SUFFIXES


@dataclass(frozen=True, slots=True)
class Loaded:
    """A whole text file: its text (file's own line endings), how to encode it back, its mode."""

    text: str
    codec: Codec
    mode: int
    size: int


def load_text(ws: Workspace, path: str, parts: tuple[str, ...], *, tool: str) -> Loaded:
    """The text of a file to edit; ToolError (naming read_file) for binary or huge files."""
    fd, info = open_regular(ws, path, parts)
    try:
        if info.st_size > MAX_EDIT_BYTES:
            raise ToolError(
                f"{path!r} is {info.st_size // (1024 * 1024)} MB; {tool} edits files up to "
                f"{MAX_EDIT_BYTES // (1024 * 1024)} MB (read_file can still page through it)"
            )
        data = read_up_to(fd, MAX_EDIT_BYTES + 1)
    finally:
        os.close(fd)
    try:
        if binary_suffix(parts):
            raise NotText("is a binary file (by its name)")
        text, codec = decode(data)
    except NotText as exc:
        raise ToolError(
            f"{path!r} {exc}; {tool} edits text files only (read_file cannot show it either)"
        ) from None
    return Loaded(text, codec, stat.S_IMODE(info.st_mode), len(data))


def existing_style(ws: Workspace, parts: tuple[str, ...]) -> tuple[Codec, str] | None:
    """The codec and line endings of the text file at `parts`, if there is one (for write_file),
    judged from its first 64 KiB."""
    try:
        fd = ws.fs.open(parts, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = read_up_to(fd, SNIFF_BYTES)
        codec = sniff(head)
    except NotText:
        return None
    finally:
        os.close(fd)
    body = head[3:] if codec.bom else head
    return codec, line_endings(body.decode(codec.encoding, errors="replace"))


def encode_for(codec: Codec, text: str, *, path: str) -> bytes:
    """`text` in the file's encoding; ToolError naming the first character it cannot hold."""
    try:
        return codec.encode(text)
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start]
        line = exc.object.count("\n", 0, exc.start) + 1
        raise ToolError(
            f"{path!r} is {codec.name} text, which cannot hold {char!r} (line {line} of the new text); "
            "nothing was written. Use characters the file's encoding has, or convert the file with write_file",
            retryable=True,
        ) from None
