"""The `terminal` tool through the deck: the gate that shows it, analysis and approvals before a
command runs, the sandbox for real (writes, network, home), timeouts, output cap, the audit log."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Deck, Tool, parse_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult


def make_deck(root: Path, **sections: Any) -> Deck:
    (root / "ws").mkdir(exist_ok=True)
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws"},
        "home": "home",
        "platform_toolsets": {"cli": ["terminal", "file"]},
    }
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    return Deck(parse_config(data, base_dir=str(root)))


def term(deck: Deck, command: str, approver: Any = None, **args: Any) -> ToolResult:
    return deck.call_sync("terminal", {"command": command, **args}, approver=approver)


@pytest.fixture
def outside() -> Iterator[Path]:
    path = Path("/var/tmp") / f"tooldeck-term-{uuid.uuid4().hex}"
    path.mkdir()
    yield path
    for child in path.iterdir():
        child.unlink()
    path.rmdir()


def test_hidden_without_a_sandbox_and_shown_with_one(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    bare = Deck(parse_config({"sandbox": {"workspace": "ws"}}, base_dir=str(tmp_path)))
    [fate] = bare.explain("terminal").fates
    assert (fate.status, fate.gate) == ("hidden", "host_shell")
    assert "sandbox.kind: bwrap" in fate.reason
    result = bare.call_sync("terminal", {"command": "echo hi"})
    assert result.error is not None and "host_shell" in result.error.message
    [fate] = make_deck(tmp_path).explain("terminal").fates
    assert fate.status == "exposed", fate.reason
    host = Deck(parse_config({"sandbox": {"allow_host_shell": True}}, base_dir=str(tmp_path)))
    assert host.explain("terminal").fates[0].status == "exposed"


def test_a_command_runs_in_the_workspace_with_its_exit_code(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    result = term(deck, "pwd; echo oops >&2; exit 3")
    assert result.ok, result.content
    lines = result.content.splitlines()
    assert lines[0] == str((tmp_path / "ws").resolve())
    assert "oops" in lines
    assert lines[-1].startswith("[exit code 3;") and lines[-1].endswith("; sandboxed]")
    assert result.meta["exit_code"] == 3


def test_writes_outside_the_workspace_fail_and_inside_succeed(tmp_path: Path, outside: Path) -> None:
    deck = make_deck(tmp_path)
    result = term(deck, f"echo in > made.txt; echo out > {outside}/escaped.txt")
    assert "Read-only file system" in result.content
    assert (tmp_path / "ws" / "made.txt").read_text() == "in\n"
    assert not (outside / "escaped.txt").exists()


def test_the_home_folder_and_the_tooldeck_home_are_not_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_home = Path("/var/tmp") / f"tooldeck-home-{uuid.uuid4().hex}"
    (user_home / ".ssh").mkdir(parents=True)
    try:
        (user_home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
        monkeypatch.setenv("HOME", str(user_home))
        deck = make_deck(tmp_path)
        term(deck, "true")  # creates the tooldeck home (audit log)
        result = term(deck, f"cat {user_home}/.ssh/id_ed25519; ls -A {tmp_path / 'home'}; echo end")
        assert "PRIVATE KEY" not in result.content and "approvals.jsonl" not in result.content
        assert "No such file or directory" in result.content
    finally:
        for path in sorted(user_home.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        user_home.rmdir()


def test_a_tooldeck_home_inside_the_workspace_stays_masked(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, home="ws/.tooldeck")
    term(deck, "true")
    result = term(deck, "ls -A .tooldeck; echo forged >> .tooldeck/grants.jsonl; echo done")
    assert "approvals.jsonl" not in result.content and "done" in result.content
    assert not (tmp_path / "ws" / ".tooldeck" / "grants.jsonl").exists()


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                got.append(conn.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], got
    stop.set()
    thread.join(timeout=2)
    server.close()


def test_no_network_unless_the_config_allows_it(tmp_path: Path, listener: tuple[int, list[bytes]]) -> None:
    port, got = listener
    command = f"echo ping > /dev/tcp/127.0.0.1/{port} && echo connected"
    closed = term(make_deck(tmp_path), command)
    assert "connected" not in closed.content and got == []
    opened = term(make_deck(tmp_path, sandbox={"network": True}), command)
    assert "connected" in opened.content and "[exit code 0;" in opened.content
    for _ in range(600):
        if got:
            break
        time.sleep(0.05)
    assert got == [b"ping\n"]


def _alive(marker: str) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


@pytest.mark.parametrize("limit", ["argument", "executor"])
def test_a_timeout_kills_the_command_and_its_children(tmp_path: Path, limit: str) -> None:
    marker = f"{uuid.uuid4().int % 10**7}.25"
    if limit == "argument":
        deck, args = make_deck(tmp_path), {"timeout": 3}
    else:  # the executor's own deadline stops the call: the process group dies with it
        deck, args = make_deck(tmp_path, execution={"max_timeout_s": 3.5}), {}
    # Deadlines a loaded machine can start the sandbox in; the command itself never ends.
    result = term(deck, f"sleep {marker} & sleep {marker} & echo started; wait", **args)
    assert "started" in result.content
    assert result.error is not None and result.error.type == "timeout"
    for _ in range(600):
        if not _alive(f"sleep\x00{marker}"):
            break
        time.sleep(0.05)
    assert not _alive(f"sleep\x00{marker}")


def test_output_is_capped_head_and_tail(tmp_path: Path) -> None:
    result = term(make_deck(tmp_path), "echo FIRST; seq 1 200000; echo LAST")
    text = result.content
    assert text.startswith("FIRST\n1\n") and "LAST\n[exit code 0;" in text
    assert "bytes of output cut" in text and len(text) < 70_000


def test_commands_are_analysed_and_asked_about_before_they_run(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    blocked = term(deck, "rm -rf / --no-preserve-root", approver=CallbackApprover(lambda r: True))
    assert blocked.error is not None and "[delete-root]" in blocked.error.message
    asked: list[ApprovalRequest] = []

    def once(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer(True, "once")

    ran = term(deck, "history -c; echo cleared > flag.txt", approver=CallbackApprover(once))
    assert ran.ok and (tmp_path / "ws" / "flag.txt").read_text() == "cleared\n"
    [request] = asked
    assert request.rule == "wipe-history" and request.subject == "history -c; echo cleared > flag.txt"
    refused = term(deck, "history -c")  # no approver: fail closed
    assert refused.error is not None and refused.error.type == "denied"
    records = [json.loads(x) for x in (tmp_path / "home" / "approvals.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in records] == ["blocked", "approved", "refused"]


def test_an_empty_command_is_a_clear_error(tmp_path: Path) -> None:
    result = term(make_deck(tmp_path), "   ")
    assert result.error is not None and "command is empty" in result.error.message


def test_the_probe_runs_only_when_a_shell_tool_needs_it(tmp_path: Path) -> None:
    plain = Tool(name="plain", description="d", parameters={"type": "object"}, handler=lambda a: "x")
    shell = plain.with_options(name="sh", shell=True)
    (tmp_path / "ws").mkdir()

    def probes(tools: list[Tool], **sandbox: Any) -> int:
        config = parse_config({"home": "home", "sandbox": sandbox}, base_dir=str(tmp_path))
        deck = Deck(config, tools=tools, builtins=False)
        deck.loadout()
        return deck.assembler.checker.probe_calls

    assert probes([plain], kind="bwrap") == 0
    assert probes([plain, shell], kind="none") == 0
    assert probes([plain, shell], kind="bwrap", allow_host_shell=True) == 0
    assert probes([plain, shell], kind="bwrap") == 1
    cached = json.loads((tmp_path / "home" / "cache" / "bwrap-probe.json").read_text())
    assert cached["works"] is True


def test_a_bwrap_that_cannot_sandbox_hides_the_tool_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"
    )
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    [fate] = make_deck(tmp_path).explain("terminal").fates
    assert (fate.status, fate.gate) == ("hidden", "host_shell")
    assert "setting up uid map" in fate.reason and "user namespaces" in fate.reason


def test_with_host_shells_allowed_a_broken_bwrap_means_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    deck = make_deck(tmp_path, sandbox={"kind": "none", "allow_host_shell": True})
    assert "otherwise directly on this machine" in str(deck.loadout().description("terminal"))
    result = term(deck, "echo hello")
    assert result.ok and result.content.endswith("; on the host]")
