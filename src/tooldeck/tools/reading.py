"""`read_file`'s page: numbered lines of a text file, streamed (a huge log is not loaded whole).

The file's encoding is sniffed from its first 64 KiB (`textfile.sniff`); lines are shown
without their line ending; undecodable bytes as U+FFFD. Notes before the paging line say what
an editor needs to know: the file is not UTF-8, some bytes are not valid UTF-8, the file has
unresolved merge-conflict markers.
"""

from __future__ import annotations

import os

from tooldeck.core import Workspace
from tooldeck.errors import ToolError
from tooldeck.tools.fileio import binary_suffix, open_regular
from tooldeck.tools.textfile import (
    SNIFF_BYTES,
    Codec,
    NotText,
    for_display,
    invalid_bytes,
    is_conflict_marker,
    sniff,
)

MAX_LINE_CHARS = 2000
MAX_PAGE_LINES = 5000
_MARKER_STARTS = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")


def read_page(ws: Workspace, path: str, offset: int, limit: int) -> str:
    """The numbered page. An offset below 1 or a limit outside 1..MAX_PAGE_LINES is brought
    within range and the page says so (as Hermes does, rather than refusing: a refusal costs the
    model a turn to send what it could have been given). The schema states no bounds for them,
    so the validator lets such values through to here."""
    offset, limit, clamped = _clamp(offset, limit)
    parts = ws.parts(path)
    name = ws.display(parts)
    fd, info = open_regular(ws, path, parts)
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
        try:
            if binary_suffix(parts):
                raise NotText("is a binary file (by its name)")
            codec = sniff(head)
        except NotText as exc:
            raise ToolError(f"{path!r} {exc} ({info.st_size} bytes); read_file only shows text") from None
        fh.seek(0)
        page = _Page(codec, offset, limit)
        for raw in fh:
            page.add(raw)
    if page.total == 0:
        return "\n".join([*clamped, f"({name} is empty)"])
    if not page.shown:
        raise ToolError(f"offset {offset} is past the end of {name} ({page.total} lines)", retryable=True)
    out = [*clamped, *page.shown, *page.notes(name)]
    last = offset + len(page.shown) - 1
    if last < page.total:
        out.append(
            f"... (showing lines {offset}-{last} of {page.total} in {name}; read_file with offset={last + 1} for more)"
        )
    return "\n".join(out)


def _clamp(offset: int, limit: int) -> tuple[int, int, list[str]]:
    notes = []
    if offset < 1:
        notes.append(f"[note: offset {offset} is below 1; reading from line 1]")
        offset = 1
    if limit < 1:
        notes.append(f"[note: limit {limit} is below 1; showing 1 line]")
        limit = 1
    elif limit > MAX_PAGE_LINES:
        notes.append(
            f"[note: limit {limit} is over {MAX_PAGE_LINES}; showing at most {MAX_PAGE_LINES} lines]"
        )
        limit = MAX_PAGE_LINES
    return offset, limit, notes


class _Page:
    """Collects the shown lines and what the notes need while the file streams past."""

    def __init__(self, codec: Codec, offset: int, limit: int) -> None:
        self.codec, self.offset, self.end = codec, offset, offset + limit
        self.shown: list[str] = []
        self.total = 0
        self.invalid = 0
        self.conflicts: list[int] = []
        self.crlf = 0

    def add(self, raw: bytes) -> None:
        self.total += 1
        if self.total == 1 and self.codec.bom:
            raw = raw[3:]
        if raw.endswith(b"\r\n"):
            self.crlf += 1
        wanted = self.offset <= self.total < self.end
        marker = raw.startswith(_MARKER_STARTS)
        high = self.codec.encoding == "utf-8" and not raw.isascii()
        if not (wanted or marker or high):
            return
        text = self._decode(raw).rstrip("\n").removesuffix("\r")
        if high:
            self.invalid += invalid_bytes(text)
        if marker and is_conflict_marker(text):
            self.conflicts.append(self.total)
        if wanted:
            text = for_display(text)
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + " ... [line truncated]"
            self.shown.append(f"{self.total}|{text}")

    def _decode(self, raw: bytes) -> str:
        try:
            return self.codec.decode(raw)
        except UnicodeDecodeError:  # a byte Windows-1252 lacks, past the sniffed start
            return raw.decode("latin-1")

    def notes(self, name: str) -> list[str]:
        out = []
        if self.codec.encoding != "utf-8":
            out.append(
                f"[note: {name} is not UTF-8; it is shown decoded as {self.codec.name}. patch and write_file "
                "write it back in that encoding]"
            )
        if self.invalid:
            out.append(
                f"[note: {self.invalid} byte{'s' if self.invalid != 1 else ''} in {name} {'are' if self.invalid != 1 else 'is'} not valid UTF-8 "
                "(shown as \ufffd); patch leaves them as they are]"
            )
        if self.conflicts:
            where = ", ".join(map(str, self.conflicts[:12])) + (" ..." if len(self.conflicts) > 12 else "")
            out.append(f"[warning: {name} has unresolved merge-conflict markers at lines {where}]")
        if self.crlf and self.crlf * 2 >= self.total:
            out.append(
                f"[note: {name} has CRLF line endings (shown without \\r); patch and write_file keep them]"
            )
        return out
