"""The inspector refuses state-changing requests that do not come from its own page: another
local page in the same Chromium (its requests carry the inspector's cookie: every port of
127.0.0.1 is the same site) cannot make a call, a body not declared JSON is refused, and a Host
that does not name the inspector is refused; the page's own requests and a program holding the
token keep working. Real `tooldeck inspect`, real Chromium, a real second local server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from .inspector import Inspector, running, write_workspace

CHROMIUM = "/usr/bin/chromium"
ATTACK = """<!doctype html><title>another local page</title><script>
fetch("%(target)s/api/call", {method: "POST", credentials: "include", mode: "no-cors",
  headers: {"Content-Type": "text/plain"},
  body: JSON.stringify({name: "write_file", arguments: {path: "pwned.txt", content: "x"}})})
  .catch(() => null).finally(() => { window.done = true; });
</script>"""


@pytest.fixture
def inspector(tmp_path: Path) -> Iterator[Inspector]:
    with running(write_workspace(tmp_path)) as found:
        yield found


@pytest.fixture
def other_page(inspector: Inspector) -> Iterator[str]:
    """A page served by another local server, on a port of its own (bound to port 0)."""
    page = (ATTACK % {"target": inspector.base}).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_another_local_page_cannot_drive_an_open_inspector(
    inspector: Inspector, other_page: str, tmp_path: Path
) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            context = browser.new_context()
            own = context.new_page()
            own.goto(inspector.url)  # the inspector open in a tab: its cookie is set
            attacker = context.new_page()
            attacker.goto(other_page)
            attacker.wait_for_function("window.done === true")
            assert not (tmp_path / "pwned.txt").exists()
            # The benign control: the inspector's own page changes things as before.
            status = own.evaluate(
                """async () => (await fetch("/api/call", {method: "POST",
                    headers: {"content-type": "application/json"},
                    body: JSON.stringify({name: "write_file", arguments: {path: "ok.txt", content: "ok"}})})).status"""
            )
            assert status == 200 and (tmp_path / "ok.txt").read_text() == "ok"
            context.close()
        finally:
            browser.close()


def test_state_changing_requests_are_refused_without_origin_json_or_host(
    inspector: Inspector, tmp_path: Path
) -> None:
    call = json.dumps({"name": "write_file", "arguments": {"path": "pwned.txt", "content": "x"}})
    port = inspector.base.rsplit(":", 1)[1]
    cases = [
        ({"content-type": "text/plain"}, "application/json"),
        ({"content-type": "application/json", "origin": "http://127.0.0.1:1"}, "another origin"),
        ({"content-type": "application/json", "origin": "null"}, "another origin"),
        ({"content-type": "application/json", "sec-fetch-site": "same-site"}, "another site"),
        ({"content-type": "application/json", "host": f"evil.example:{port}"}, "Host"),
    ]
    with inspector.client() as client:
        for headers, named in cases:
            answer = client.post("/api/call", content=call, headers=headers)
            assert answer.status_code == 403 and named in answer.json()["error"], (headers, answer.text)
        # A read with a foreign Host is refused as well (a name rebound to this address).
        assert client.get("/api/info", headers={"host": f"evil.example:{port}"}).status_code == 403
        assert not (tmp_path / "pwned.txt").exists()
        # The page's own origin, and a program that sends no Origin, are served.
        own = {"content-type": "application/json", "origin": inspector.base, "sec-fetch-site": "same-origin"}
        assert client.post("/api/call", content=call.replace("pwned", "own"), headers=own).status_code == 200
        assert client.post("/api/call", json={"name": "echo", "arguments": {"text": "hi"}}).status_code == 200
        # The inspector reached as localhost (a Host of its own names) is served.
        assert client.get("/api/info", headers={"host": f"localhost:{port}"}).status_code == 200
    assert (tmp_path / "own.txt").read_text() == "x"
