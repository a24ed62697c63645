"""Enterprise-managed authorization (SEP-990, `grant: identity_assertion`) against a real MCP
server on loopback (servers/enterprise_http_server.py: the SDK's authorization-server pieces with
the jwt-bearer grant, an enterprise IdP beside them), driven through the command line with nobody
to approve anything: `tooldeck mcp list` and `tooldeck call` get their tokens themselves."""

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
from typing import Any

import pytest

from support.cli import tooldeck_command

from .mcpkit import _listening, free_port, stop_process, wait_for

pytestmark = pytest.mark.timeout(180)

SERVER = Path(__file__).resolve().parent / "servers" / "enterprise_http_server.py"
TOOLDECK = str(Path(sys.executable).parent / "tooldeck")
SECRET, ID_TOKEN, IDP_SECRET = "mcp-secret-123", "id-token-of-ada-456", "idp-secret-789"


@dataclass
class Enterprise:
    """A running server, its log of exchanges, and a project configured for it."""

    base: str
    log: Path
    project: Path

    def configure(self, **auth: Any) -> None:
        entry = {
            "grant": "identity_assertion",
            "client_id": "mcp-client",
            "client_secret_env": "NOTES_SECRET",
            "issuer": self.base,
            "idp_token_endpoint": f"{self.base}/idp/token",
            "idp_client_id": "idp-client",
            "idp_id_token_env": "NOTES_ID_TOKEN",
            **auth,
        }
        server = {"url": f"{self.base}/mcp", "connect_timeout": 20, "auth": entry}
        config = {"home": "home", "mcp_servers": {"notes": server}}
        (self.project / "tooldeck.yaml").write_text(json.dumps(config))

    @property
    def record(self) -> Path:
        return self.project / "home" / "mcp-auth" / "notes.json"

    def grants(self) -> list[dict[str, Any]]:
        if not self.log.is_file():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def tooldeck(self, *args: str, id_token: str = ID_TOKEN) -> subprocess.CompletedProcess[str]:
        environ = {k: v for k, v in os.environ.items() if k != "TOOLDECK_OAUTH_FOLLOW_REDIRECT"}
        environ.update(NOTES_SECRET=SECRET, NOTES_ID_TOKEN=id_token, NOTES_IDP_SECRET=IDP_SECRET)
        return subprocess.run(
            [*tooldeck_command(), *args, "--config", str(self.project / "tooldeck.yaml")],
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=120,
            env=environ,
        )

    def status(self, **kw: str) -> dict[str, Any]:
        done = self.tooldeck("mcp", "list", "--json", **kw)
        assert done.returncode == 0, done.stderr
        (server,) = json.loads(done.stdout)
        assert isinstance(server, dict)
        assert not any(s in done.stdout + done.stderr for s in (ID_TOKEN, SECRET, IDP_SECRET))
        return server


def _start(tmp_path: Path, ttl: int) -> Iterator[Enterprise]:
    port = free_port()
    log = tmp_path / "grants.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), str(port), str(log), str(ttl)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: _listening(port), 120, "the enterprise MCP server")
        project = tmp_path / "project"
        project.mkdir()
        enterprise = Enterprise(f"http://127.0.0.1:{port}", log, project)
        enterprise.configure()
        yield enterprise
    finally:
        stop_process(proc)


@pytest.fixture
def enterprise(tmp_path: Path) -> Iterator[Enterprise]:
    yield from _start(tmp_path, ttl=3600)


@pytest.fixture
def short_lived(tmp_path: Path) -> Iterator[Enterprise]:
    """Access tokens that expire three seconds after they are issued."""
    yield from _start(tmp_path, ttl=3)


def _oks(e: Enterprise) -> list[str]:
    return [g["grant"] for g in e.grants() if g["ok"]]


def test_list_and_call_get_a_token_through_the_idp_and_later_runs_reuse_it(enterprise: Enterprise) -> None:
    server = enterprise.status()
    assert server["state"] == "ready", server
    assert server["tools"] == ["mcp__notes__read_note"]
    assert _oks(enterprise) == ["token-exchange", "jwt-bearer"]
    exchange = enterprise.grants()[0]
    assert exchange["audience"] == enterprise.base  # the configured authorization server
    assert exchange["client_auth"] == "none"  # no IdP secret configured: the client ID alone
    # The token is kept privately, bound to the configured issuer; the ID token is not kept.
    assert stat.S_IMODE(enterprise.record.stat().st_mode) == 0o600
    stored = json.loads(enterprise.record.read_text())
    assert stored["issuer"] == enterprise.base and stored["tokens"]["access_token"].startswith("at-")
    assert ID_TOKEN not in enterprise.record.read_text() and SECRET not in enterprise.record.read_text()
    # Another process (a call) uses the stored token: no second exchange.
    done = enterprise.tooldeck("call", "mcp__notes__read_note", "--args", '{"title": "milk"}', "--json")
    answer = json.loads(done.stdout)
    assert answer["ok"] is True and "remember the milk" in answer["content"], done.stderr
    assert _oks(enterprise) == ["token-exchange", "jwt-bearer"]


def test_configured_scopes_go_to_both_legs(enterprise: Enterprise) -> None:
    enterprise.configure(scopes=["notes:read"])
    assert enterprise.status()["state"] == "ready"
    exchange, bearer = enterprise.grants()
    assert exchange["scope"] == "notes:read" and bearer["scopes"] == ["notes:read"]


def test_a_client_secret_at_the_idp_goes_in_http_basic(enterprise: Enterprise) -> None:
    enterprise.configure(idp_client_secret_env="NOTES_IDP_SECRET")
    assert enterprise.status()["state"] == "ready"
    assert enterprise.grants()[0]["client_auth"] == "basic"


def test_an_expired_token_is_exchanged_for_anew(short_lived: Enterprise) -> None:
    assert short_lived.status()["state"] == "ready"
    expires_at = json.loads(short_lived.record.read_text())["expires_at"]
    while time.time() <= expires_at + 0.5:
        time.sleep(0.5)
    assert short_lived.status()["state"] == "ready"
    assert _oks(short_lived) == ["token-exchange", "jwt-bearer"] * 2


def test_a_refused_id_token_fails_with_the_idps_reason_and_without_the_token(enterprise: Enterprise) -> None:
    stale = "stale-id-token-789"
    server = enterprise.status(id_token=stale)
    assert server["state"] == "failed"
    error = str(server["error"])
    assert "enterprise IdP refused the token exchange (HTTP 400: invalid_grant: the ID token" in error, error
    assert stale not in error and "[ID token]" in error
    # Nothing was asked of the authorization server, and nothing is stored.
    assert [g["grant"] for g in enterprise.grants()] == ["token-exchange"]
    assert not enterprise.record.is_file() or json.loads(enterprise.record.read_text())["tokens"] is None


def test_a_client_the_authorization_server_does_not_know_is_refused(enterprise: Enterprise) -> None:
    enterprise.configure(client_id="someone-else")
    server = enterprise.status()
    assert server["state"] == "failed"
    assert "OAuth login to MCP server 'notes' failed" in str(server["error"])
    assert "invalid_client" in str(server["error"])


def test_an_id_token_variable_that_is_not_set_names_its_key(enterprise: Enterprise) -> None:
    environ = {k: v for k, v in os.environ.items() if k != "NOTES_ID_TOKEN"}
    environ["NOTES_SECRET"] = SECRET
    done = subprocess.run(
        [*tooldeck_command(), "mcp", "list", "--config", str(enterprise.project / "tooldeck.yaml")],
        cwd=enterprise.project,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )
    assert done.returncode == 2
    assert "mcp_servers.notes.auth.idp_id_token_env" in done.stderr and "NOTES_ID_TOKEN" in done.stderr
