"""Real MCP servers: mcp-server-time and mcp-server-git (PyPI) and server-everything (npm) over
stdio, server-everything over streamable HTTP and SSE — listed, gated and called through the deck."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tooldeck._core.execution.policy import AutoApprover
from tooldeck._core.execution.results import UNTRUSTED_OPEN
from tooldeck._core.execution.types import ToolCall

from .mcpkit import deck_over, everything, node_http_server, venv_command


def test_time_server_over_stdio(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"time": {"command": venv_command("mcp-server-time")}}) as deck:
        tools = {t.name: t for t in deck.loadout().exposed}
        now = tools["mcp__time__get_current_time"]
        assert now.toolset == "mcp-time" and now.source == "mcp"
        assert now.read_only is True and now.resource is None and not now.requires_approval
        assert now.parameters["required"] == ["timezone"]
        result = deck.call_sync("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})
        assert result.ok, result.content
        assert json.loads(result.content)["timezone"] == "Asia/Tokyo"
        # A closed-world server (openWorldHint false): its output is not framed as untrusted.
        assert UNTRUSTED_OPEN not in result.content
        bad = deck.call_sync("mcp__time__get_current_time", {"timezone": "Mars/Olympus"})
        assert bad.error is not None and bad.error.type == "tool_error"
        assert "Mars/Olympus" in bad.error.message
        missing = deck.call_sync("mcp__time__get_current_time", {})
        assert missing.error is not None and missing.error.type == "invalid_arguments"


def test_git_server_destructive_tools_need_approval(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _repo_with_a_commit(repo)
    (repo / "a.txt").write_text("hello\n")
    git = {"command": venv_command("mcp-server-git"), "args": ["--repository", str(repo)]}
    with deck_over(tmp_path, {"git": git}) as deck:
        tools = {t.name: t for t in deck.loadout().exposed}
        # destructiveHint: such calls need approval (the built-in policy asks about destructive tools).
        assert tools["mcp__git__git_reset"].destructive and tools["mcp__git__git_reset"].approval is None
        assert not tools["mcp__git__git_add"].destructive
        # Tools that change the repository take turns; read-only ones run alongside anything.
        assert tools["mcp__git__git_add"].resource is not None
        assert tools["mcp__git__git_status"].resource is None
        status = deck.call_sync("mcp__git__git_status", {"repo_path": str(repo)})
        assert status.ok and "a.txt" in status.content
        added = deck.call_sync("mcp__git__git_add", {"repo_path": str(repo), "files": ["a.txt"]})
        assert added.ok, added.content
        refused = deck.call_sync("mcp__git__git_reset", {"repo_path": str(repo)})
        assert refused.error is not None and refused.error.type == "denied"
        staged = subprocess.run(
            ["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, text=True
        )
        assert staged.stdout.strip() == "a.txt"  # the refused reset did not run
        reset = deck.call_sync("mcp__git__git_reset", {"repo_path": str(repo)}, approver=AutoApprover())
        assert reset.ok, reset.content
        staged = subprocess.run(
            ["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, text=True
        )
        assert staged.stdout.strip() == ""


def _repo_with_a_commit(repo: Path) -> None:
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README").write_text("x\n")
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)


def test_approval_setting_overrides_the_hints(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    base = {"command": venv_command("mcp-server-git"), "args": ["--repository", str(repo)]}
    servers = {"trusted": {**base, "approval": "never"}, "watched": {**base, "approval": "always"}}
    with deck_over(tmp_path, servers) as deck:
        tools = {t.name: t for t in deck.loadout().exposed}
        assert not tools["mcp__trusted__git_reset"].requires_approval
        assert tools["mcp__watched__git_status"].requires_approval


def test_everything_server_content_kinds(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"ev": everything()}) as deck:
        image = deck.call_sync("mcp__ev__get-tiny-image", {})
        assert image.ok
        saved = image.content.split("saved as ")[1].split("]")[0]
        assert "(image/png)" in image.content and Path(saved).read_bytes().startswith(b"\x89PNG")
        assert Path(saved).is_relative_to(tmp_path / "home")
        structured = deck.call_sync("mcp__ev__get-structured-content", {"location": "Chicago"})
        assert structured.ok and "temperature" in json.loads(structured.content)
        links = deck.call_sync("mcp__ev__get-resource-links", {"count": 2})
        assert links.ok and links.content.count("[resource link ") == 2
        ref = deck.call_sync("mcp__ev__get-resource-reference", {"resourceType": "Text", "resourceId": 1})
        assert (
            ref.ok and "[resource <demo://resource/dynamic/text/1> (text/plain)]\nResource 1:" in ref.content
        )
        blob = deck.call_sync("mcp__ev__get-resource-reference", {"resourceType": "Blob", "resourceId": 2})
        assert blob.ok and "[resource <demo://resource/dynamic/blob/2> (text/plain), " in blob.content
        summed = deck.call_sync("mcp__ev__get-sum", {"a": "2", "b": 40})  # lenient coercion of "2"
        assert summed.ok and "42" in summed.content


def test_child_environment_is_allow_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "do-not-leak")
    monkeypatch.setenv("MY_SETTING", "inherited")
    monkeypatch.setenv("PASSED_IN", "interpolated")
    servers = {
        "plain": everything(env={"GREETING": "${PASSED_IN}"}),
        "custom": everything(inherit_env=["PATH", "MY_*"]),
    }
    with deck_over(tmp_path, servers) as deck:
        plain = json.loads(deck.call_sync("mcp__plain__get-env", {}).content)
        assert plain["GREETING"] == "interpolated" and "PATH" in plain and "HOME" in plain
        assert "SECRET_TOKEN" not in plain and "MY_SETTING" not in plain
        custom = json.loads(deck.call_sync("mcp__custom__get-env", {}).content)
        assert custom["MY_SETTING"] == "inherited" and "HOME" not in custom and "SECRET_TOKEN" not in custom


def test_everything_read_only_calls_run_in_parallel(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"ev": everything()}) as deck:
        args = json.dumps({"duration": 3, "steps": 1})
        calls = [ToolCall(f"c{i}", "mcp__ev__trigger-long-running-operation", args) for i in range(3)]
        import time

        started = time.monotonic()
        results = deck.call_batch_sync(calls)
        elapsed = time.monotonic() - started
        assert all(r.ok for r in results), [r.content for r in results]
        assert elapsed < 6, elapsed  # three 3 s operations at once: one after another takes 9 s


@pytest.mark.parametrize("mode", ["streamableHttp", "sse"])
def test_everything_over_http_transports(tmp_path: Path, mode: str) -> None:
    with node_http_server(mode) as port:
        if mode == "sse":
            server = {"url": f"http://127.0.0.1:{port}/sse", "transport": "sse"}
        else:
            server = {"url": f"http://127.0.0.1:{port}/mcp", "headers": {"X-Test": "${TEST_HEADER_VALUE:-x}"}}
        with deck_over(tmp_path, {"remote": server}) as deck:
            names = {t.name for t in deck.loadout().exposed}
            assert "mcp__remote__echo" in names
            result = deck.call_sync("mcp__remote__echo", {"message": f"over {mode}"})
            assert result.ok and f"over {mode}" in result.content
            source = next(s for s in deck.sources if s.name == "mcp-remote")
            assert source.status().state == "ready"


def test_remote_headers_carry_a_token_that_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from .mcpkit import TINY, free_port, wait_for
    from .mcpkit import _listening as listening

    port = free_port()
    script = TINY.parent / "auth_http_server.py"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port), "tok-123-secret"], stderr=subprocess.DEVNULL
    )
    try:
        wait_for(lambda: listening(port), 30, "auth server")
        monkeypatch.setenv("DEMO_TOKEN", "tok-123-secret")
        url = f"http://127.0.0.1:{port}/mcp"
        servers = {
            "good": {"url": url, "headers": {"Authorization": "Bearer ${DEMO_TOKEN}"}},
            "wrong": {
                "url": url,
                "headers": {"Authorization": "Bearer not-the-token-456"},
                "connect_timeout": 5,
            },
        }
        with deck_over(tmp_path, servers) as deck:
            result = deck.call_sync("mcp__good__secret_word", {})
            assert result.ok and "swordfish" in result.content
            wrong = next(s for s in deck.sources if s.name == "mcp-wrong")
            status = wrong.status()
            assert status.state == "failed"
            assert "HTTP 401 Unauthorized: missing or wrong bearer token" in (status.error or "")
            shown = repr(deck.explain()) + repr(deck.config) + (status.error or "")
            assert "tok-123-secret" not in shown and "not-the-token-456" not in shown
    finally:
        proc.terminate()
        proc.wait(10)
