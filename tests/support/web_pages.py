"""A local web site for the web and browser tools: pages, redirects, slow and huge answers.

`WebSite(host)` serves on `host` (a loopback address) and a free port in a thread. Two sites on
127.0.0.1 and 127.0.0.2 let tests redirect from an allowed address to a refused one without
any traffic leaving the machine. Every request is recorded (path and headers).
"""

from __future__ import annotations

import contextlib
import json
import struct
import threading
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

ARTICLE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Tides of Brest &amp; Roscoff</title>
<style>body { color: #333 }</style></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></nav>
<article>
<h1>Tides of Brest</h1>
<p>The tide in Brest rises twice a day. High water today is at <b>06:42</b>, and the range is
close to seven meters, one of the largest on the Atlantic coast of France.</p>
<h2>Table of high waters</h2>
<table><tr><th>Day</th><th>High water</th></tr><tr><td>Monday</td><td>06:42</td></tr>
<tr><td>Tuesday</td><td>07:31</td></tr></table>
<p>Harbour masters publish <a href="https://example.org/tables">yearly tables</a> for every
port of Brittany. Roscoff and Saint-Malo see similar ranges, and fishermen plan around them.</p>
<ul><li>Spring tides follow the new and full moon.</li><li>Neap tides fall between them.</li></ul>
</article>
<footer>Copyright 2026 Harbour Office</footer>
<script>var secret = "script text must not show";</script>
</body></html>"""

FORM = """<!doctype html>
<html><head><title>Search form</title></head><body>
<h1>Find a port</h1>
<form action="/echo" method="get"><label>Port name <input name="q"></label>
<button type="submit">Search</button></form>
<button type="button" onclick="document.getElementById('out').textContent = 'Button was pressed'">Press me</button>
<p id="out">Nothing pressed yet</p>
<p id="key">No key yet</p>
<a href="/article">Read the tide article</a>
<img src="/image.png" alt="red square" width="40" height="40">
<script>document.addEventListener('keydown', e => { document.getElementById('key').textContent = 'Last key: ' + e.key; });</script>
</body></html>"""


def tiny_png(width: int = 4, height: int = 4) -> bytes:
    """A valid red PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def tiny_pdf(text: str = "Hello from a PDF about tides", title: str = "Tide report") -> bytes:
    """A one-page PDF whose page shows `text` (Helvetica) and whose metadata has `title`."""
    stream = f"BT /F1 14 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 144] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (" + title.encode() + b") >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def gzip_bomb(expanded: int = 64_000_000) -> bytes:
    """A small gzip body that inflates to `expanded` bytes of one repeated letter."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(b"<html><body><p>")]
    block = b"A" * 1_000_000
    parts += [packer.compress(block) for _ in range(expanded // len(block))]
    return b"".join([*parts, packer.compress(b"</p></body></html>"), packer.flush()])


def _gzip(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


_PAGE = b"<html><head><title>Packed</title></head><body><p>Packed tide notes for Brest.</p></body></html>"
ENCODED: dict[str, Callable[[], tuple[bytes, str]]] = {
    "/gzip-bomb": lambda: (_BOMB, "gzip"),
    "/gzip-page": lambda: (_gzip(_PAGE, 16 + zlib.MAX_WBITS) * 2, "gzip"),  # two gzip members
    "/deflate-page": lambda: (_gzip(_PAGE, zlib.MAX_WBITS), "deflate"),
    "/raw-deflate-page": lambda: (_gzip(_PAGE, -zlib.MAX_WBITS), "deflate"),
    "/brotli-page": lambda: (b"not really brotli", "br"),
}
_BOMB = gzip_bomb()


class WebSite:
    """The site; `other` (set by the test) is the URL of a second site to redirect to."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.other = ""
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.release = threading.Event()  # lets /slow answer early when a test is done
        # /together/KEY/N/...: how many requests of each KEY have arrived (see `_together`).
        self.arrived: dict[str, int] = {}
        self.arrival = threading.Condition()
        site = self

        class Handler(_Handler):
            owner = site

        self._httpd = ThreadingHTTPServer((host, 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> WebSite:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    def paths(self) -> list[str]:
        return [p for p, _ in self.requests]


class _Handler(BaseHTTPRequestHandler):
    owner: WebSite
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._route()

    def _send(self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        headers = {"Content-Length": str(len(body)), **(headers or {})}
        self.send_header("Content-Type", kind)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _together(self, path: str) -> None:
        """/together/KEY/N/NAME answers "together" once N requests of KEY have arrived, so only
        requests made at the same time all get it (one made alone waits, up to 30 s)."""
        _, _, key, count, *_ = path.split("/")
        site = self.owner
        with site.arrival:
            site.arrived[key] = site.arrived.get(key, 0) + 1
            site.arrival.notify_all()
            met = site.arrival.wait_for(lambda: site.arrived[key] >= int(count), timeout=30)
        self._send(200, b"together" if met else b"alone", "text/plain; charset=utf-8")

    def _route(self) -> None:
        site = self.owner
        url = urlsplit(self.path)
        site.requests.append((url.path, {k.lower(): v for k, v in self.headers.items()}))
        html = "text/html; charset=utf-8"
        simple: dict[str, tuple[bytes, str]] = {
            "/article": (ARTICLE.encode(), html),
            "/form": (FORM.encode(), html),
            "/plain": (b"Plain notes: the harbour opens at six.\n", "text/plain; charset=utf-8"),
            "/data.json": (
                json.dumps({"port": "Brest", "high_water": ["06:42", "19:05"]}).encode(),
                "application/json",
            ),
            "/doc.pdf": (tiny_pdf(), "application/pdf"),
            "/image.png": (tiny_png(), "image/png"),
            "/broken.pdf": (b"%PDF-1.4 garbage", "application/pdf"),
            "/latin1": (
                "<html><head><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e au caf\xe9 du port, servie chaque jour \xe0 midi pour les marins du port.</p></body></html>".encode(
                    "latin-1"
                ),
                "text/html; charset=iso-8859-1",
            ),
            "/bare": (b"<html><body><div>Only a tiny line.</div></body></html>", html),
            "/tall": (
                (
                    "<html><head><title>Tall</title></head><body>"
                    + "".join(f"<p style='height:300px'>Section {i}</p>" for i in range(40))
                    + "</body></html>"
                ).encode(),
                html,
            ),
        }
        if url.path in simple:
            body, kind = simple[url.path]
            self._send(200, body, kind)
        elif url.path == "/set-cookie":
            self._send(
                200,
                b"<html><body><p>cookie set</p></body></html>",
                html,
                {"Set-Cookie": "flavour=salt; Path=/"},
            )
        elif url.path == "/show-cookie":
            cookie = self.headers.get("Cookie") or "no cookie"
            self._send(200, f"<html><body><p>Cookie: {cookie}</p></body></html>".encode(), html)
        elif url.path == "/echo":
            q = parse_qs(url.query).get("q", [""])[0]
            page = (
                f"<html><head><title>Results</title></head><body><h1>You searched for: {q}</h1></body></html>"
            )
            self._send(200, page.encode(), html)
        elif url.path.startswith("/redirect-to/"):
            target = url.path[len("/redirect-to") :]
            self._send(302, b"", html, {"Location": target})
        elif url.path.startswith("/redirect-other/"):
            self._send(302, b"", html, {"Location": site.other + url.path[len("/redirect-other") :]})
        elif url.path == "/redirect-loop":
            self._send(302, b"", html, {"Location": "/redirect-loop"})
        elif url.path == "/private-image":
            page = f"<html><head><title>Mixed</title></head><body><p>Picture below</p><img src='{site.other}/image.png' alt='far'></body></html>"
            self._send(200, page.encode(), html)
        elif url.path.startswith("/together/"):
            self._together(url.path)
        elif url.path.startswith("/slow"):
            site.release.wait(10)
            self._send(200, b"<html><body><p>finally</p></body></html>", html)
        elif url.path == "/huge-declared":
            self._send(200, b"x" * 1000, "text/plain", {"Content-Length": "50000000"})
        elif url.path == "/huge-stream":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(40):
                self.wfile.write(b"y" * 1_000_000)
        elif url.path in ENCODED:
            body, encoding = ENCODED[url.path]()
            self._send(200, body, html, {"Content-Encoding": encoding})
        elif url.path.startswith("/status/"):
            code = int(url.path.rsplit("/", 1)[1])
            self._send(code, b"<html><body>error page</body></html>", html)
        else:
            self._send(404, b"<html><body>not found</body></html>", html)
