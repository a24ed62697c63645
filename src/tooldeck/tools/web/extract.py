"""Turning a fetched response into text a model can read.

HTML goes through trafilatura, which finds the main content and drops navigation, footers and
scripts, as markdown (links and tables kept) or plain text; a page where it finds no main
content falls back to the whole body converted by markdownify (markdown) or lxml (text), with
scripts and styles removed. Plain text, markdown, CSV, XML and JSON pass through (JSON pretty
printed); PDFs become their pages' text (pypdf). Anything else is an `unsupported_type` error.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from tooldeck.tools.web.fetch import Fetched, FetchError

Format = Literal["markdown", "text"]

_HTML = frozenset({"text/html", "application/xhtml+xml"})
_TEXT = frozenset(
    {"text/plain", "text/markdown", "text/x-markdown", "text/csv", "text/xml", "application/xml"}
)
_PDF = frozenset({"application/pdf", "application/x-pdf"})
_MAX_PDF_PAGES = 200
_BLANKS = re.compile(r"\n{3,}")


@dataclass(frozen=True, slots=True)
class Document:
    title: str | None
    text: str
    kind: str  # what it was read as: html, text, json, pdf


def to_document(fetched: Fetched, fmt: Format) -> Document:
    """The readable content of `fetched`; raises `FetchError("unsupported_type", ...)`."""
    kind = fetched.content_type or _sniff(fetched.body)
    if kind in _HTML:
        return _html(fetched, fmt)
    if kind in _PDF:
        return _pdf(fetched.body)
    if kind == "application/json" or kind.endswith("+json"):
        return Document(None, _json(_decode(fetched.body, fetched.charset)), "json")
    if kind in _TEXT or kind.endswith("+xml") or kind.startswith("text/"):
        return Document(None, _decode(fetched.body, fetched.charset), "text")
    raise FetchError(
        "unsupported_type",
        f"content type {kind or 'unknown'} is not text: web_extract reads HTML, text, JSON and PDF",
    )


def _sniff(body: bytes) -> str:
    head = body[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    if head.startswith(b"%pdf-"):
        return "application/pdf"
    if head.startswith((b"{", b"[")):
        return "application/json"
    return "text/plain" if _looks_like_text(body[:2048]) else ""


def _looks_like_text(sample: bytes) -> bool:
    return b"\x00" not in sample


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name from the server
        return body.decode("utf-8", errors="replace")


def _json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _html(fetched: Fetched, fmt: Format) -> Document:
    import trafilatura

    html = _decode(fetched.body, fetched.charset)
    title = _title(html)
    text = trafilatura.extract(
        html,
        url=fetched.final_url,
        output_format="markdown" if fmt == "markdown" else "txt",
        include_links=fmt == "markdown",
        include_tables=True,
        include_formatting=fmt == "markdown",
        include_comments=False,
        favor_recall=True,
    )
    if not text or not text.strip():
        text = _whole_page(html, fmt)
    return Document(title, _BLANKS.sub("\n\n", text).strip(), "html")


def _title(html: str) -> str | None:
    match = re.search(r"<title[^>]*>(.*?)</title>", html[:200_000], re.IGNORECASE | re.DOTALL)
    if not match:
        return None
    import html as html_lib

    title = " ".join(html_lib.unescape(match.group(1)).split())
    return title or None


def _whole_page(html: str, fmt: Format) -> str:
    """The whole body without scripts and styles, for pages trafilatura finds no article in."""
    import lxml.html

    try:
        root = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return ""
    for node in root.xpath("//script|//style|//noscript|//template|//svg"):
        node.drop_tree()
    if fmt == "text":
        lines = (" ".join(line.split()) for line in root.text_content().splitlines())
        return "\n".join(line for line in lines if line)
    from markdownify import markdownify

    body = root.find("body")
    markup = lxml.html.tostring(body if body is not None else root, encoding="unicode")
    converted: str = markdownify(markup, heading_style="ATX")
    return converted


def _pdf(body: bytes) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    from tooldeck._utils.logs import quiet_library

    quiet_library("pypdf")  # its complaints about a damaged file are in our error, not on stderr
    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages[:_MAX_PDF_PAGES]]
        meta: Any = reader.metadata
    except (PdfReadError, ValueError, KeyError) as exc:
        raise FetchError("unsupported_type", f"not a readable PDF: {exc}") from None
    title = str(meta.title) if meta is not None and meta.title else None
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if len(reader.pages) > _MAX_PDF_PAGES:
        text += f"\n\n[only the first {_MAX_PDF_PAGES} of {len(reader.pages)} pages were read]"
    return Document(title, text, "pdf")
