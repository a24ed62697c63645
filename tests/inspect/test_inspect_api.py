"""`tooldeck inspect`'s JSON API against the commands it mirrors, through the real console script."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.cli import run_tooldeck

from .inspector import TINY, Inspector, running, wait_for, write_workspace

DIALECTS = ("openai", "responses", "anthropic", "gemini")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_workspace(tmp_path_factory.mktemp("inspect-api"))


@pytest.fixture(scope="module")
def inspector(workspace: Path) -> Iterator[Inspector]:
    with running(workspace) as found:
        yield found


def cli_json(config: Path, *args: str) -> Any:
    proc = run_tooldeck(config.parent, *args, "--config", str(config), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_every_request_without_the_token_is_refused(inspector: Inspector) -> None:
    assert len(inspector.token) >= 16
    with inspector.client(authorized=False) as c:
        for path in ("/", "/static/app.js", "/api/loadout", "/api/tools/echo", "/api/nowhere"):
            assert c.get(path).status_code == 401, path
        assert c.post("/api/call", json={"name": "echo", "arguments": {"text": "x"}}).status_code == 401
        assert c.get("/api/loadout", params={"token": "x" + inspector.token[1:]}).status_code == 401
        assert (
            c.get("/", headers={"Cookie": "tooldeck_inspect=wrong-token-of-some-length"}).status_code == 401
        )
        assert c.get("/", headers={"Cookie": 'tooldeck_inspect="\\x'}).status_code == 401


def test_the_query_token_sets_a_cookie_good_for_every_later_request(inspector: Inspector) -> None:
    with httpx.Client(base_url=inspector.base, timeout=30) as c:
        first = c.get("/", params={"token": inspector.token})
        assert first.status_code == 200 and "tooldeck inspect" in first.text
        assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
        assert "script-src 'self'" in first.headers["content-security-policy"]
        # The cookie alone, and the bearer header alone, are enough from now on.
        assert c.get("/api/loadout").status_code == 200
    with httpx.Client(base_url=inspector.base, timeout=30) as c:
        assert c.get("/api/info", headers={"Authorization": f"Bearer {inspector.token}"}).status_code == 200


def test_the_loadout_is_exactly_what_explain_json_says(inspector: Inspector, workspace: Path) -> None:
    rows = inspector.get("/api/loadout")
    assert rows == cli_json(workspace, "explain")
    fates = {r["name"]: r for r in rows}
    assert fates["echo"]["status"] == "exposed" and fates["echo"]["tokens"] > 0
    assert fates["other"]["status"] == "hidden" and fates["other"]["gate"] == "disabled_toolsets"
    for dialect in ("anthropic", "gemini"):
        assert inspector.get("/api/loadout", dialect=dialect) == cli_json(
            workspace, "explain", "--dialect", dialect
        )
    gateway = inspector.get("/api/loadout", platform="gateway")
    assert gateway == cli_json(workspace, "explain", "--platform", "gateway")
    assert {r["name"] for r in gateway if r["status"] == "exposed"} <= {"echo", "launch", "flagged", "survey"}


def test_a_tool_carries_its_exact_entry_of_tools_json_in_each_dialect(
    inspector: Inspector, workspace: Path
) -> None:
    for dialect in DIALECTS:
        tool = inspector.get("/api/tools/echo", dialect=dialect)
        sent = cli_json(workspace, "tools", "--dialect", dialect)
        assert tool["entry"] in sent, dialect
        [explained] = cli_json(workspace, "explain", "echo", "--dialect", dialect)
        assert tool["tokens"] == explained["tokens"], dialect
    strict = inspector.get("/api/tools/echo", dialect="openai", strict="1")
    assert strict["entry"] in cli_json(workspace, "tools", "--dialect", "openai", "--strict")
    assert strict["entry"] != inspector.get("/api/tools/echo", dialect="openai")["entry"]
    hidden = inspector.get("/api/tools/other")
    assert hidden["entry"] is None and hidden["gate"] == "disabled_toolsets"


def test_bad_requests_get_a_clear_error(inspector: Inspector) -> None:
    with inspector.client() as c:
        missing = c.get("/api/tools/ecko")
        assert missing.status_code == 404 and "did you mean echo" in missing.json()["error"]
        dialect = c.get("/api/tools/echo", params={"token": inspector.token, "dialect": "cobol"})
        assert dialect.status_code == 400 and "unknown dialect 'cobol'" in dialect.json()["error"]
        platform = c.get("/api/loadout", params={"token": inspector.token, "platform": "moon"})
        assert platform.status_code == 400 and "moon" in platform.json()["error"]
        body = c.post("/api/call", content=b"{not json", headers={"content-type": "application/json"})
        assert body.status_code == 400 and "not JSON" in body.json()["error"]
        unnamed = c.post("/api/call", json={"arguments": {}})
        assert unnamed.status_code == 400 and '"name"' in unnamed.json()["error"]
        listed = c.post("/api/call", json={"name": "echo", "arguments": [1, 2]})
        assert listed.status_code == 400 and '"arguments"' in listed.json()["error"]
        answer = c.post("/api/approvals/nope", json={"decision": "maybe"})
        assert answer.status_code == 400 and "decision must be" in answer.json()["error"]
        gone = c.post("/api/approvals/nope", json={"decision": "deny"})
        assert gone.status_code == 404


def test_a_call_answers_what_call_json_prints(inspector: Inspector, workspace: Path) -> None:
    for name, arguments in (
        ("echo", {"text": "tide", "times": 2}),
        ("echo", '{"text": "raw json", "loud": true}'),
        ("echo", {"times": "many"}),  # invalid arguments: an error envelope, not a failed request
        ("ecko", {}),  # an unknown tool: the envelope names the close one
    ):
        got = inspector.post("/api/call", {"name": name, "arguments": arguments})
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        want = cli_json(workspace, "call", name, "--args", text)
        assert {k: got[k] for k in ("ok", "content", "error")} == {
            k: want[k] for k in ("ok", "content", "error")
        }
    assert (
        inspector.post("/api/call", {"name": "echo", "arguments": {"text": "a", "times": 3}})["content"]
        == "a a a"
    )


def test_an_approval_waits_in_the_page_and_deny_gives_the_denied_result(inspector: Inspector) -> None:
    results: list[Any] = []
    caller = threading.Thread(
        target=lambda: results.append(
            inspector.post("/api/call", {"name": "launch", "arguments": {"target": "moon"}})
        )
    )
    caller.start()
    [waiting] = wait_for(lambda: inspector.get("/api/approvals"), "the approval request")
    assert waiting["tool"] == "launch" and waiting["arguments"] == {"target": "moon"}
    assert waiting["rule"] == "requires_approval:launch" and "requires approval" in waiting["reason"]
    assert inspector.post(f"/api/approvals/{waiting['id']}", {"decision": "deny"}) == {"answered": True}
    caller.join(60)
    [result] = results
    assert result["ok"] is False and result["error"]["type"] == "denied"
    assert inspector.get("/api/approvals") == []
    audit = inspector.get("/api/audit")
    assert audit[0]["tool"] == "launch" and audit[0]["outcome"] == "refused"
    assert audit[0]["approver"] == "PageApprover" and audit[0]["rule"] == "requires_approval:launch"
    # Approved, it runs.
    caller = threading.Thread(
        target=lambda: results.append(
            inspector.post("/api/call", {"name": "launch", "arguments": {"target": "sea"}})
        )
    )
    caller.start()
    [waiting] = wait_for(lambda: inspector.get("/api/approvals"), "the second approval request")
    inspector.post(f"/api/approvals/{waiting['id']}", {"decision": "approve"})
    caller.join(60)
    assert results[1] == {"ok": True, "content": "launched sea", "error": None, "meta": results[1]["meta"]}
    assert inspector.get("/api/audit")[0]["outcome"] == "approved"


def test_a_check_that_flips_is_seen_without_a_restart(inspector: Inspector, workspace: Path) -> None:
    flag = workspace.parent / "flag.txt"
    status = lambda: {r["name"]: r for r in inspector.get("/api/loadout")}["flagged"]  # noqa: E731
    assert status()["status"] == "hidden" and status()["gate"] == "availability"
    flag.write_text("up")
    try:
        assert status()["status"] == "exposed"
    finally:
        flag.unlink()
    assert status()["status"] == "hidden"


def test_sessions_and_checkpoints_are_those_the_commands_list(inspector: Inspector, workspace: Path) -> None:
    assert inspector.get("/api/sessions") == cli_json(workspace, "sessions", "list", "--all")
    assert inspector.get("/api/checkpoints") == cli_json(workspace, "checkpoints")


def test_a_non_loopback_host_needs_a_token_and_a_short_token_is_refused(workspace: Path) -> None:
    refused = run_tooldeck(
        workspace.parent, "inspect", "--no-open", "--host", "0.0.0.0", "--config", str(workspace)
    )
    assert refused.returncode == 2 and "token" in refused.stderr and refused.stdout == ""
    short = run_tooldeck(
        workspace.parent, "inspect", "--no-open", "--token", "abc", "--config", str(workspace)
    )
    assert short.returncode == 2 and "at least 16" in short.stderr


def test_a_given_token_is_used_and_each_run_has_its_own(workspace: Path, inspector: Inspector) -> None:
    given = "a-token-given-on-the-command-line"
    with running(workspace, "--token", given) as other:
        assert other.token == given
        assert other.get("/api/info")["platforms"] == ["cli", "gateway"]
    with running(workspace) as fresh:
        assert fresh.token != inspector.token and len(fresh.token) >= 16


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for all purposes but its exit status.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][:1] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_mcp_servers_are_shown_as_mcp_list_does_and_nothing_survives_a_stop(tmp_path: Path, sig: int) -> None:
    pid_file = tmp_path / "tiny.pid"
    servers = {
        "tiny": {"command": sys.executable, "args": [str(TINY), "--pid-file", str(pid_file)]},
        "broken": {"command": sys.executable, "args": [str(TINY), "--exit-at-start", "3"]},
    }
    config = write_workspace(tmp_path, mcp=servers)
    with running(config) as inspector:
        statuses = inspector.get("/api/mcp")
        pid = int(pid_file.read_text())  # before `mcp list` starts a server of its own
        listed = cli_json(config, "mcp", "list")
        assert [(s["name"], s["state"], s["tools"]) for s in statuses] == [
            (s["name"], s["state"], s["tools"]) for s in listed
        ]
        by_name = {s["name"]: s for s in statuses}
        assert "mcp__tiny__echo" in by_name["tiny"]["tools"] and by_name["tiny"]["error"] is None
        assert by_name["broken"]["error"]
        # The server announces a new tool (notifications/tools/list_changed): the loadout has it.
        added = inspector.post("/api/call", {"name": "mcp__tiny__add_tool", "arguments": {"name": "fresh"}})
        assert added["ok"], added
        names = lambda: {r["name"] for r in inspector.get("/api/loadout")}  # noqa: E731
        wait_for(lambda: "mcp__tiny__fresh" in names(), "the tool the server added")
        echoed = inspector.post("/api/call", {"name": "mcp__tiny__echo", "arguments": {"text": "over mcp"}})
        assert echoed["ok"] and "over mcp" in echoed["content"]
        assert pid_alive(pid)
        code = inspector.stop(sig)
    assert code == 130, "".join(inspector.stderr)
    wait_for(lambda: not pid_alive(pid), "the MCP server's end", 15)


def test_ctrl_c_without_mcp_servers_exits_130(workspace: Path) -> None:
    with running(workspace) as inspector:
        assert inspector.get("/api/info")["platform"] == "cli"
        assert inspector.stop(signal.SIGINT) == 130
