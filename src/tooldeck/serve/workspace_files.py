"""The workspace's files as read-only MCP resources, and the results cut for being too long:
URIs, cursors, listing, confined reading, completion and change marks (blocking calls, made in a
worker thread by `resources.py`, whose docstring says what is served and why)."""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import os
import re
import stat
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit

from tooldeck._utils.fds import read_up_to
from tooldeck.core import Session, Workspace
from tooldeck.errors import Refused, TooldeckError, ToolError, WorkspaceError

if TYPE_CHECKING:
    import mcp_types
    from mcp.shared.exceptions import MCPError

PAGE_SIZE = 100
# Entries looked at per listing request at most: a page of a huge tree ends early, with a cursor.
MAX_VISITS = 20_000
MAX_READ_BYTES = 8 * 1024 * 1024
MAX_COMPLETIONS = 100
FILE_TEMPLATE = "file:///{path}"
RESULT_TEMPLATE = "tooldeck://results/{id}"
RESULTS = "tooldeck://results/"
# What the file tools' searches skip as well: not the project's own files.
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})
_END_OF_RESULT = re.compile(r"\n\n\[characters 0-(\d+) of (\d+); end of result\]\Z")

# What a watched file looked like: (mtime, ctime, size, inode), None when it cannot be seen.
Mark = tuple[int, int, int, int] | None


# -- errors -------------------------------------------------------------------------------------


def not_found(uri: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, f"Resource not found: {uri}", data={"uri": uri})


def refused(uri: str, why: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, f"cannot read {uri}: {why}", data={"uri": uri, "reason": why})


def invalid(message: str) -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, message)


# -- URIs and cursors -------------------------------------------------------------------------


def file_uri(parts: Sequence[str]) -> str:
    return "file:///" + quote("/".join(parts), safe="/")


def file_path(uri: str) -> str | None:
    """The workspace-relative path a `file:` URI names, None for another scheme or a host."""
    try:
        split = urlsplit(uri)
    except ValueError:
        return None
    if split.scheme.lower() != "file" or split.netloc not in ("", "localhost"):
        return None
    if split.query or split.fragment:
        return None
    return unquote(split.path).lstrip("/")


def result_id(uri: str) -> str | None:
    """The id of a `tooldeck://results/<id>` URI, None for any other URI."""
    if not uri.startswith(RESULTS):
        return None
    found = unquote(uri[len(RESULTS) :])
    return found if found and "/" not in found else None


def encode_cursor(parts: Sequence[str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(parts)).encode()).decode()


def decode_cursor(cursor: str) -> tuple[str, ...]:
    try:
        parts = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid(f"invalid cursor {cursor[:80]!r}: pass on the nextCursor of the last page") from None
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        raise invalid(f"invalid cursor {cursor[:80]!r}: pass on the nextCursor of the last page")
    return tuple(parts)


# -- the workspace's files (blocking: run off the event loop) -----------------------------------


class WorkspaceFiles:
    """Listing, reading, completing and watching the files of one workspace (see the module
    docstring); blocking calls, made in a worker thread."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def page(self, after: tuple[str, ...] | None) -> tuple[list[mcp_types.Resource], tuple[str, ...] | None]:
        """The files after `after` in path order (one page), and the cursor of the next page."""
        found: list[mcp_types.Resource] = []
        for visits, (parts, info) in enumerate(self._walk((), after), 1):
            if info is not None:
                found.append(resource(parts, info))
                if len(found) >= PAGE_SIZE:
                    return found, parts
            if visits >= MAX_VISITS:
                return found, parts
        return found, None

    def _walk(
        self, folder: tuple[str, ...], after: tuple[str, ...] | None
    ) -> Iterator[tuple[tuple[str, ...], os.stat_result | None]]:
        """Every entry looked at, in path order, after `after` (a file: with its stat, to list it)."""
        fs = self.workspace.fs
        try:
            entries = fs.listdir(folder)
        except (OSError, Refused):
            return
        for entry in entries:
            parts = (*folder, entry.name)
            if after is not None and parts < after and after[: len(parts)] != parts:
                continue  # this entry, and all it holds, came on an earlier page
            if entry.kind == "other" or (entry.kind == "dir" and entry.name in SKIP_DIRS):
                yield parts, None
                continue
            if self.workspace.protected(parts) is not None:
                yield parts, None
                continue
            if entry.kind == "dir":
                yield parts, None
                yield from self._walk(parts, after)
                continue
            try:
                info: os.stat_result | None = fs.stat(parts)  # a symlink: followed, inside only
            except (OSError, Refused):
                info = None
            if info is not None and not stat.S_ISREG(info.st_mode):
                info = None
            yield parts, info if after is None or parts > after else None

    def parts(self, uri: str) -> tuple[str, ...]:
        """The workspace path a file URI names, checked as the file tools check it."""
        rel = file_path(uri)
        if rel is None:
            raise not_found(uri)
        if not rel.strip("/"):
            raise refused(uri, "it names the workspace folder itself, not a file")
        try:
            return self.workspace.parts(rel)
        except WorkspaceError as exc:
            raise refused(uri, str(exc)) from None
        except ToolError:
            raise not_found(uri) from None  # hidden (the home): as missing as for the tools

    def check(self, uri: str) -> None:
        """Raise the error reading `uri` would, but for a file that does not exist (yet)."""
        parts = self.parts(uri)
        why = self.workspace.protected(parts)
        if why is not None:
            raise refused(uri, f"it is a protected path ({why})")

    def read(self, uri: str) -> mcp_types.ReadResourceResult:
        import mcp_types

        parts = self.parts(uri)
        ws = self.workspace
        try:
            fd = ws.fs.open(parts, os.O_RDONLY | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            raise not_found(uri) from None
        except Refused as exc:
            raise refused(uri, str(ws.refusal(Workspace.display(parts), exc))) from None
        except OSError as exc:
            raise refused(uri, exc.strerror or str(exc)) from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise refused(uri, "it is a folder, not a file (list the files with resources/list)")
            if not stat.S_ISREG(info.st_mode):
                raise refused(uri, "it is not a regular file (a pipe, socket or device)")
            # Checked on what was opened: a symlink swapped in meanwhile cannot lead it elsewhere.
            why = _protects(ws, fd, parts)
            if why is not None:
                raise refused(uri, f"it is a protected path ({why})")
            if info.st_size > MAX_READ_BYTES:
                raise refused(uri, f"it is {info.st_size} bytes, more than the {MAX_READ_BYTES} served")
            data = read_up_to(fd, MAX_READ_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_READ_BYTES:
            raise refused(uri, f"it is more than the {MAX_READ_BYTES} bytes served")
        return mcp_types.ReadResourceResult(contents=[contents(uri, parts[-1], data)])

    def mark(self, uri: str) -> Mark:
        """What the file looks like now, to tell a change (None: missing or not to be seen)."""
        rel = file_path(uri)
        if rel is None:
            return None
        try:
            info = self.workspace.fs.stat(self.workspace.parts(rel))
        except (OSError, TooldeckError):
            return None
        return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)

    def complete(self, typed: str) -> tuple[list[str], int]:
        """The entries of the folder `typed` names so far that start with its last part (folders
        with a trailing `/`), at most `MAX_COMPLETIONS`, and how many there are."""
        value = typed.lstrip("/")
        folder, _, start = value.rpartition("/")
        try:
            where = self.workspace.parts(folder) if folder.strip("/") else ()
            entries = self.workspace.fs.listdir(where)
        except (OSError, TooldeckError):
            return [], 0
        prefix = "/".join(where) + "/" if where else ""
        found: list[str] = []
        total = 0
        for entry in entries:
            if not entry.name.startswith(start) or entry.kind == "other":
                continue
            parts = (*where, entry.name)
            is_dir = entry.kind == "dir"
            if entry.kind == "link":
                try:
                    mode = self.workspace.fs.stat(parts).st_mode
                except (OSError, Refused):
                    continue
                if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                    continue
                is_dir = stat.S_ISDIR(mode)
            if is_dir and entry.name in SKIP_DIRS:
                continue
            if self.workspace.protected(parts) is not None:
                continue
            total += 1
            if len(found) < MAX_COMPLETIONS:
                found.append(prefix + entry.name + ("/" if is_dir else ""))
        return found, total


def _protects(ws: Workspace, fd: int, parts: Sequence[str]) -> str | None:
    plane = ws.plane
    if plane is None:
        return None
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = ws.resolve(parts)
    return plane.protects(real)


def text_of(data: bytes) -> str | None:
    """`data` as text when it is UTF-8 without NUL bytes, else None (a binary file)."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def contents(
    uri: str, name: str, data: bytes
) -> mcp_types.TextResourceContents | mcp_types.BlobResourceContents:
    import mcp_types

    mime = mimetypes.guess_type(name)[0]
    text = text_of(data)
    if text is not None:
        return mcp_types.TextResourceContents(uri=uri, mime_type=mime or "text/plain", text=text)
    blob = base64.b64encode(data).decode("ascii")
    return mcp_types.BlobResourceContents(uri=uri, mime_type=mime or "application/octet-stream", blob=blob)


def resource(parts: Sequence[str], info: os.stat_result) -> mcp_types.Resource:
    import mcp_types

    modified = datetime.fromtimestamp(info.st_mtime, UTC).isoformat().replace("+00:00", "Z")
    return mcp_types.Resource(
        uri=file_uri(parts),
        name="/".join(parts),
        title=parts[-1],
        mime_type=mimetypes.guess_type(parts[-1])[0],
        size=info.st_size,
        annotations=mcp_types.Annotations(last_modified=modified),
    )


def result_resource(rid: str) -> mcp_types.Resource:
    import mcp_types

    return mcp_types.Resource(
        uri=RESULTS + quote(rid, safe=""),
        name=f"result {rid}",
        description="The whole text of a tool result that was cut for being too long.",
        mime_type="text/plain",
    )


def whole_result(session: Session, uri: str, rid: str) -> mcp_types.ReadResourceResult:
    """The full text the session's spill store keeps under `rid` (its `read`, in one page)."""
    import mcp_types

    try:
        page = session.spill.read(rid, 0, 1 << 40)
    except ToolError:
        raise not_found(uri) from None
    end = _END_OF_RESULT.search(page)
    if end is not None and end.group(1) == end.group(2) and int(end.group(2)) == end.start():
        page = page[: end.start()]
    return mcp_types.ReadResourceResult(
        contents=[mcp_types.TextResourceContents(uri=uri, mime_type="text/plain", text=page)]
    )
