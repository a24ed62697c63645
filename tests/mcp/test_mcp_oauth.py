"""OAuth against a real OAuth-protected MCP server on loopback (servers/oauth_http_server.py: the
SDK's own authorization-server pieces, dynamic registration, PKCE, refresh, resources checked),
driven through the command line as a person would: `tooldeck mcp login`, `mcp list`, `call`,
`mcp logout`. The server approves every authorization at once, so a login completes by following
its redirect: with $TOOLDECK_OAUTH_FOLLOW_REDIRECT, or with a "browser" ($BROWSER) that fetches
the URL and follows redirects into tooldeck's loopback listener.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.cli import tooldeck_command

from .mcpkit import _listening, free_port, stop_process, wait_for

pytestmark = pytest.mark.timeout(180)

SERVER = Path(__file__).resolve().parent / "servers" / "oauth_http_server.py"
TOOLDECK = str(Path(sys.executable).parent / "tooldeck")
HINT = "run `tooldeck mcp login notes`"


@dataclass
class Notes:
    """A running OAuth-protected server and a project configured for it."""

    url: str
    log: Path
    project: Path

    @property
    def home(self) -> Path:
        return self.project / "home"

    @property
    def record(self) -> Path:
        return self.home / "mcp-auth" / "notes.json"

    def grants(self) -> list[str]:
        if not self.log.is_file():
            return []
        return [json.loads(line)["grant"] for line in self.log.read_text().splitlines()]

    def tooldeck(self, *args: str, follow: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
        environ = {
            k: v for k, v in os.environ.items() if k not in ("TOOLDECK_OAUTH_FOLLOW_REDIRECT", "BROWSER")
        }
        environ.pop("DISPLAY", None)
        environ.update(env)
        if follow:
            environ["TOOLDECK_OAUTH_FOLLOW_REDIRECT"] = "1"
        return subprocess.run(
            [*tooldeck_command(), *args, "--config", str(self.project / "tooldeck.yaml")],
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=120,
            env=environ,
        )


def _serve(port: int, log: Path, ttl: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), str(port), str(log), str(ttl)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: _listening(port), 120, "the OAuth MCP server")
    return proc


def _start(tmp_path: Path, ttl: int) -> Iterator[Notes]:
    port = free_port()
    log = tmp_path / "grants.jsonl"
    proc = _serve(port, log, ttl)
    try:
        project = tmp_path / "project"
        project.mkdir()
        url = f"http://127.0.0.1:{port}/mcp"
        config = {"home": "home", "mcp_servers": {"notes": {"url": url, "connect_timeout": 20}}}
        (project / "tooldeck.yaml").write_text(json.dumps(config))
        yield Notes(url, log, project)
    finally:
        stop_process(proc)


@pytest.fixture
def notes(tmp_path: Path) -> Iterator[Notes]:
    yield from _start(tmp_path, ttl=3600)


@pytest.fixture
def short_lived(tmp_path: Path) -> Iterator[Notes]:
    """Access tokens that expire three seconds after they are issued."""
    yield from _start(tmp_path, ttl=3)


def _status(n: Notes) -> dict[str, object]:
    done = n.tooldeck("mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)
    assert isinstance(server, dict)
    return server


def _call(n: Notes) -> dict[str, object]:
    done = n.tooldeck("call", "mcp__notes__read_note", "--args", '{"title": "shopping"}', "--json")
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def _stored(n: Notes) -> dict[str, object]:
    data: dict[str, object] = json.loads(n.record.read_text())
    return data


def test_without_a_login_the_server_says_to_log_in_and_nothing_is_registered(notes: Notes) -> None:
    server = _status(notes)
    assert server["state"] == "failed"
    assert HINT in str(server["error"])
    answer = _call(notes)
    assert answer["ok"] is False
    explained = notes.tooldeck("explain", "--json")
    assert HINT in explained.stdout + explained.stderr
    # Nobody could approve a login, so no client was registered and nothing was authorized.
    assert notes.grants() == []
    assert not notes.record.exists()


def test_login_follows_the_redirect_stores_the_tokens_privately_and_calls_use_them(notes: Notes) -> None:
    done = notes.tooldeck("mcp", "login", "notes", follow=True)
    assert done.returncode == 0, done.stderr
    assert "logged in to notes (1 tools)" in done.stdout
    assert notes.grants() == ["register", "authorize", "authorization_code"]
    assert stat.S_IMODE(notes.record.stat().st_mode) == 0o600
    assert stat.S_IMODE(notes.record.parent.stat().st_mode) == 0o700
    stored = _stored(notes)
    tokens = stored["tokens"]
    assert isinstance(tokens, dict)
    access, refresh = str(tokens["access_token"]), str(tokens["refresh_token"])
    assert stored["url"] == notes.url and stored["issuer"] == notes.url.removesuffix("/mcp")

    # A later run, with nobody to ask, uses the stored token.
    answer = _call(notes)
    assert answer["ok"] is True and "remember the milk" in str(answer["content"])
    assert _status(notes)["state"] == "ready"
    assert notes.grants() == ["register", "authorize", "authorization_code"]
    # The tokens are never printed by any command.
    shown = done.stdout + done.stderr + json.dumps(answer) + json.dumps(_status(notes))
    assert access not in shown and refresh not in shown


def test_an_expired_token_is_refreshed_quietly(short_lived: Notes) -> None:
    n = short_lived
    assert n.tooldeck("mcp", "login", "notes", follow=True).returncode == 0
    first = _stored(n)
    expires_at = first["expires_at"]
    assert isinstance(expires_at, float)
    wait_for(lambda: time.time() > expires_at + 1.0, 30, "the access token's expiry")
    answer = _call(n)
    assert answer["ok"] is True, answer
    assert n.grants() == ["register", "authorize", "authorization_code", "refresh_token"]
    second = _stored(n)
    assert isinstance(first["tokens"], dict) and isinstance(second["tokens"], dict)
    assert second["tokens"]["access_token"] != first["tokens"]["access_token"]
    assert isinstance(second["expires_at"], float) and second["expires_at"] > expires_at


def test_logout_removes_the_tokens_and_the_server_asks_for_a_login_again(notes: Notes) -> None:
    assert notes.tooldeck("mcp", "login", "notes", follow=True).returncode == 0
    done = notes.tooldeck("mcp", "logout", "notes")
    assert done.returncode == 0 and "logged out of notes" in done.stdout
    assert not notes.record.exists()
    assert HINT in str(_status(notes)["error"])
    again = notes.tooldeck("mcp", "logout", "notes")
    assert again.returncode == 0 and "no stored login for notes" in again.stdout


BROWSER_SCRIPT = """import sys, httpx2
# A browser whose person clicks "allow": fetch the page, follow every redirect (into tooldeck's listener).
response = httpx2.get(sys.argv[1], follow_redirects=True, timeout=30)
sys.exit(0 if response.status_code == 200 else 1)
"""


def test_login_opens_the_browser_and_the_loopback_listener_gets_the_code(
    notes: Notes, tmp_path: Path
) -> None:
    browser = tmp_path / "browser.py"
    browser.write_text(BROWSER_SCRIPT)
    done = notes.tooldeck("mcp", "login", "notes", BROWSER=f"{sys.executable} {browser} %s")
    assert done.returncode == 0, done.stderr
    assert "opened your browser" in done.stderr and "logged in to notes" in done.stdout
    assert _call(notes)["ok"] is True


def test_on_a_machine_without_a_browser_the_url_is_printed(notes: Notes) -> None:
    proc = subprocess.Popen(
        [
            TOOLDECK,
            "mcp",
            "login",
            "notes",
            "--timeout",
            "60",
            "--config",
            str(notes.project / "tooldeck.yaml"),
        ],
        cwd=notes.project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            k: v
            for k, v in os.environ.items()
            if k not in ("DISPLAY", "BROWSER", "TOOLDECK_OAUTH_FOLLOW_REDIRECT")
        },
    )
    try:
        assert proc.stderr is not None
        lines = iter(proc.stderr.readline, "")
        assert "open this URL in a browser to log in:" in next(lines)
        url = next(lines).strip()
        assert url.startswith(notes.url.removesuffix("/mcp") + "/authorize?")
        import httpx2

        assert httpx2.get(url, follow_redirects=True, timeout=30).status_code == 200
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0 and "logged in to notes" in out


def test_login_of_a_local_server_or_an_unknown_name_is_a_usage_error(notes: Notes) -> None:
    config = notes.project / "tooldeck.yaml"
    data = json.loads(config.read_text())
    data["mcp_servers"]["local"] = {"command": sys.executable, "args": ["-c", "pass"]}
    config.write_text(json.dumps(data))
    local = notes.tooldeck("mcp", "login", "local")
    assert local.returncode == 2 and "only remote servers (`url`) log in" in local.stderr
    unknown = notes.tooldeck("mcp", "login", "nope")
    assert unknown.returncode == 2 and "no MCP server named 'nope' (servers: local, notes)" in unknown.stderr


def test_a_server_that_loses_its_login_keeps_its_tools_hidden_with_the_reason(tmp_path: Path) -> None:
    from .mcpkit import deck_over

    port = free_port()
    log = tmp_path / "grants.jsonl"
    first = _serve(port, log, 3600)
    project = tmp_path / "project"
    project.mkdir()
    url = f"http://127.0.0.1:{port}/mcp"
    (project / "tooldeck.yaml").write_text(
        json.dumps({"home": "home", "mcp_servers": {"notes": {"url": url}}})
    )
    notes = Notes(url, log, project)
    second = None
    try:
        assert notes.tooldeck("mcp", "login", "notes", follow=True).returncode == 0
        servers = {"notes": {"url": url, "connect_timeout": 20}}
        with deck_over(tmp_path, servers, home=str(notes.home)) as deck:
            (fate,) = deck.explain("mcp__notes__read_note").fates
            assert fate.status == "exposed"
            # The server restarts knowing none of the tokens it issued: the stored login is void.
            stop_process(first)
            second = _serve(port, log, 3600)
            # The next call is refused for want of a login, and says what to run.
            result = deck.call_sync("mcp__notes__read_note", {"title": "x"})
            assert not result.ok and HINT in result.content
            source = next(s for s in deck.sources if s.name == "mcp-notes")
            wait_for(lambda: source.status().state == "failed", 60, "the reconnection to ask for a login")
            assert HINT in (source.status().error or "")
            (fate,) = deck.explain("mcp__notes__read_note").fates
            assert (fate.status, fate.gate) == ("hidden", "availability")
            assert HINT in (fate.reason or "")
    finally:
        stop_process(first) if first.poll() is None else None
        if second is not None:
            stop_process(second)
