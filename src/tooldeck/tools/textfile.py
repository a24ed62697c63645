"""What the file tools know about a file's bytes: binary or text, which encoding, which line ends.

Edits must give back every byte they did not touch, so decoding is always reversible:

- UTF-8 (a byte-order mark is remembered and restored);
- UTF-8 with a few invalid bytes: each is kept as a lone surrogate (Python's `surrogateescape`)
  and written back as the same byte; `read_file` shows it as U+FFFD;
- a single-byte file (no valid multi-byte UTF-8 at all): Windows-1252 when every byte is
  defined there, else Latin-1. Both map each byte to one character and back;
- NUL bytes, a high share of control bytes, or a UTF-16/32 byte-order mark: binary, refused
  with the reason.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Literal

Encoding = Literal["utf-8", "cp1252", "latin-1"]
SNIFF_BYTES = 65536
_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))  # fmt: skip
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
_CP1252_UNDEFINED = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")
_ESCAPED = re.compile("[\udc80-\udcff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMES = {"utf-8": "UTF-8", "cp1252": "Windows-1252 (Latin-1)", "latin-1": "Latin-1 (ISO-8859-1)"}
_CONFLICT = re.compile(r"^(?:<{7}(?: |$)|={7}$|>{7}(?: |$)|\|{7}(?: |$))", re.MULTILINE)
# Characters model-supplied text may not put into a text file: C0 controls other than tab, line
# feed, carriage return, vertical tab, form feed and escape; DEL; lone surrogates.
_BAD_CHARACTER = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\ud800-\udfff]")


class NotText(Exception):
    """The bytes are not text the file tools can show or edit; the message says what they are,
    as a predicate ("is a binary file (it contains NUL bytes)")."""


@dataclass(frozen=True, slots=True)
class Codec:
    """How one file's bytes map to text and back."""

    encoding: Encoding = "utf-8"
    bom: bool = False

    @property
    def name(self) -> str:
        return _NAMES[self.encoding] + (" with a byte-order mark" if self.bom else "")

    def decode(self, data: bytes) -> str:
        if self.encoding == "utf-8":
            return data.decode("utf-8", errors="surrogateescape")
        return data.decode(self.encoding)

    def encode(self, text: str) -> bytes:
        """`text` as this file's bytes; raises UnicodeEncodeError for characters it cannot hold."""
        body = text.encode(self.encoding, errors="surrogateescape" if self.encoding == "utf-8" else "strict")
        return codecs.BOM_UTF8 + body if self.bom else body


def sniff(head: bytes) -> Codec:
    """The codec for a file that starts with `head` (up to SNIFF_BYTES); raises NotText."""
    for mark, name in _BOMS:
        if head.startswith(mark):
            raise NotText(
                f"{name} text (it starts with a {name} byte-order mark); only UTF-8 and Latin-1 text is supported"
            )
    bom = head.startswith(codecs.BOM_UTF8)
    body = head[3:] if bom else head
    if b"\x00" in body:
        raise NotText("is a binary file (it contains NUL bytes)")
    if body and len(_CONTROL.findall(body)) > len(body) * 0.05:
        raise NotText("is a binary file (more than 5% of its bytes are control characters)")
    # The sample may end inside a multi-byte character: decode it as a stream, not final.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    text = decoder.decode(body, final=False)
    escaped = len(_ESCAPED.findall(text))
    if escaped == 0 or bom or any(ord(c) > 0x7F and not 0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return Codec("utf-8", bom)
    return Codec("latin-1" if _CP1252_UNDEFINED.search(body) else "cp1252")


def decode(data: bytes) -> tuple[str, Codec]:
    """The text of a whole file and its codec; raises NotText."""
    codec = sniff(data[:SNIFF_BYTES])
    if codec.encoding == "cp1252" and _CP1252_UNDEFINED.search(data):
        codec = Codec("latin-1")
    if codec.encoding == "utf-8" and b"\x00" in data:
        raise NotText("is a binary file (it contains NUL bytes)")
    body = data[3:] if codec.bom else data
    return codec.decode(body), codec


def invalid_bytes(text: str) -> int:
    """How many bytes of a UTF-8 file did not decode (kept as surrogate escapes)."""
    return len(_ESCAPED.findall(text))


def for_display(text: str) -> str:
    """Text safe to hand to a model: undecodable bytes (and any lone surrogate) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def line_endings(text: str) -> Literal["lf", "crlf", "mixed", "none"]:
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    if crlf and lf:
        return "mixed"
    return "crlf" if crlf else "lf" if lf else "none"


def is_conflict_marker(line: str) -> bool:
    return _CONFLICT.match(line) is not None


def bad_character(text: str, *, what: str) -> str | None:
    """Why `text` (model-supplied content) cannot go into a text file, or None if it can."""
    found = _BAD_CHARACTER.search(text)
    if found is None:
        return None
    index, char = found.start(), found.group()
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    kind = "a lone surrogate (not valid Unicode)" if ord(char) >= 0xD800 else "a control character"
    return (
        f"{what} contains {kind} {char!r} at line {line}, column {column}; text files cannot hold it "
        "(remove it, or write binary data some other way)"
    )
