"""The terminal prompt on a real pseudo-terminal: once / session / always / deny, arguments shown
with control characters escaped, and no answer in time counted as no; `tooldeck call` too."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
from tests.safety.approval_kit import Recorder, audit, loadout, plain_tool, run, shell_tool

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.policy import Grants, TerminalApprover


class Terminal:
    """A pty: the approver reads the slave side; the test types on the master side."""

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        self.stdin: TextIO = os.fdopen(slave, "r", encoding="utf-8")
        self.screen = io.StringIO()

    def type_after_prompt(self, text: str) -> threading.Thread:
        """Type `text` once the prompt is on the screen (the approver is waiting for it)."""

        def typist() -> None:
            deadline = time.monotonic() + 60
            while "Allow?" not in self.screen.getvalue() and time.monotonic() < deadline:
                time.sleep(0.01)
            os.write(self.master, text.encode())

        thread = threading.Thread(target=typist, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.stdin.close()
        os.close(self.master)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    t = Terminal()
    yield t
    t.close()


@pytest.mark.parametrize(
    ("typed", "ran_twice", "saved"),
    [
        ("o\n", False, False),
        ("s\n", True, False),
        ("always\n", True, True),
        ("d\n", False, False),
        ("\n", False, False),
    ],
)
def test_each_answer_of_the_prompt(
    tmp_path: Path, terminal: Terminal, typed: str, ran_twice: bool, saved: bool
) -> None:
    rec = Recorder()
    lo = loadout(tmp_path, shell_tool(recorder=rec))
    approver = TerminalApprover(stdin=terminal.stdin, stdout=terminal.screen)
    grants = Grants()
    typist = terminal.type_after_prompt(typed)
    first = run(Executor(lo, approver=approver, grants=grants), "run", {"command": "sudo reboot"})
    typist.join()
    approved = typed.strip() in ("o", "s", "always")
    assert first.ok is approved
    # The second time nobody types: only a session or always grant lets it run.
    terminal.screen.truncate(0)
    terminal.screen.seek(0)
    lo_quick = loadout(tmp_path, shell_tool(recorder=rec), approvals={"timeout_s": 0.2})
    second = run(Executor(lo_quick, approver=approver, grants=grants), "run", {"command": "sudo reboot"})
    assert second.ok is ran_twice
    assert (tmp_path / "home" / "grants.jsonl").exists() is saved
    if not approved:
        assert first.error is not None and "did not approve" in first.error.message


def test_the_prompt_shows_the_command_and_arguments_escaped(tmp_path: Path, terminal: Terminal) -> None:
    rec = Recorder()
    lo = loadout(tmp_path, shell_tool(recorder=rec), plain_tool("drop", recorder=rec, destructive=True))
    approver = TerminalApprover(stdin=terminal.stdin, stdout=terminal.screen)
    typist = terminal.type_after_prompt("n\n")
    run(Executor(lo, approver=approver), "drop", {"x": "db\x1b]0;pwned\x07"})
    typist.join()
    screen = terminal.screen.getvalue()
    assert "tool 'drop' is marked destructive" in screen
    assert "\x1b" not in screen and "\\x1b]0;pwned\\x07" in screen
    assert "[o]nce / [s]ession / [a]lways / [D]eny" in screen
    terminal.screen.truncate(0)
    terminal.screen.seek(0)
    typist = terminal.type_after_prompt("n\n")
    run(Executor(lo, approver=approver), "run", {"command": 'git   reset --hard; echo "\x1b[2J"'})
    typist.join()
    screen = terminal.screen.getvalue()
    # The normalised command the grant would be bound to, escaped.
    assert 'run: git reset --hard; echo "\\x1b[2J"' in screen
    assert "[git-discard-work]" in screen and "\x1b" not in screen


def test_no_answer_within_the_timeout_is_a_no(tmp_path: Path, terminal: Terminal) -> None:
    rec = Recorder()
    lo = loadout(tmp_path, shell_tool(recorder=rec), approvals={"timeout_s": 0.5})
    started = time.monotonic()
    result = run(
        Executor(lo, approver=TerminalApprover(stdin=terminal.stdin, stdout=terminal.screen)),
        "run",
        {"command": "sudo reboot"},
    )
    # Nobody types: it waited for an answer (no earlier than the timeout), then refused.
    assert time.monotonic() - started >= 0.4
    assert result.error is not None and "no answer within 0.5 s" in result.error.message
    assert rec.ran == [] and audit(tmp_path)[-1]["outcome"] == "refused"


def _tooldeck_in_pty(args: list[str], cwd: Path, typed: str | None, env: dict[str, str]) -> tuple[int, str]:
    """Run the `tooldeck` command with a pty as stdin (stdout stays a pipe for --json)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("tooldeck")), *args],
        cwd=cwd,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(slave)
    stderr = proc.stderr
    assert stderr is not None
    if typed is not None:
        deadline = time.monotonic() + 20
        seen = b""
        while time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([stderr], [], [], 0.1)
            if ready:
                seen += os.read(stderr.fileno(), 4096)
            if b"Allow?" in seen:
                os.write(master, typed.encode())
                break
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    return proc.returncode, out.decode()


def test_tooldeck_call_asks_on_the_terminal_and_times_out_to_a_no(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "tooldeck.yaml").write_text(
        "sandbox: {kind: bwrap, workspace: ws}\napprovals: {timeout_s: 1}\nhome: home\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    args = ["call", "terminal", "--args", '{"command": "history -c; touch done.txt"}', "--json"]
    code, out = _tooldeck_in_pty(args, tmp_path, "session\n", env)
    assert code == 0, out
    assert (ws / "done.txt").is_file()
    code, out = _tooldeck_in_pty(args, tmp_path, None, env)  # nobody answers
    assert code == 1 and "no answer within 1 s" in out
    outcomes = [r["outcome"] for r in audit(tmp_path)]
    assert outcomes == ["approved", "refused"]  # a session grant does not outlive the process
