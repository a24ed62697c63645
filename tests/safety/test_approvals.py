"""Approvals through the real executor: shell verdicts, modes, grants bound to the exact command
and rule, saved `always` grants, the audit log, destructive tools, and the callback channel."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest
from tests.safety.approval_kit import Answers, Recorder, audit, loadout, plain_tool, run, shell_tool

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.policy import (
    ApprovalAnswer,
    ApprovalRequest,
    AutoApprover,
    CallbackApprover,
    Grants,
)


def test_a_blocked_command_is_never_run_nor_asked_about_whatever_the_mode_or_approver(tmp_path: Path) -> None:
    rec = Recorder()
    answers = Answers([True, True])
    for mode in ("ask", "allow", "deny"):
        lo = loadout(tmp_path, shell_tool(recorder=rec), approvals={"mode": mode, "tools": {"run": "allow"}})
        for approver in (AutoApprover(), CallbackApprover(answers)):
            result = run(Executor(lo, approver=approver), "run", {"command": "a=rm; $a -rf /"})
            assert result.error is not None and result.error.type == "denied"
            assert "blocked command" in result.error.message and "[delete-root]" in result.error.message
    assert rec.ran == [] and answers.requests == []
    # Not even a grant written by hand into the grants file lets it through.
    (tmp_path / "home" / "grants.jsonl").write_text(
        f'{{"workspace": "{tmp_path / "ws"}", "tool": "run", "rule": "delete-root", "subject": "a=rm; $a -rf /"}}\n'
    )
    os.chmod(tmp_path / "home" / "grants.jsonl", 0o600)
    lo = loadout(tmp_path, shell_tool(recorder=rec))
    assert run(Executor(lo, approver=AutoApprover()), "run", {"command": "a=rm; $a -rf /"}).error is not None
    assert rec.ran == []
    assert {r["outcome"] for r in audit(tmp_path)} == {"blocked"}


@pytest.mark.parametrize(
    ("mode", "approver", "ran"),
    [
        ("ask", None, False),
        ("deny", AutoApprover(), False),
        ("allow", None, True),
        ("ask", AutoApprover(), True),
    ],
)
def test_a_flagged_command_follows_the_mode_and_fails_closed(
    tmp_path: Path, mode: str, approver: AutoApprover | None, ran: bool
) -> None:
    rec = Recorder()
    lo = loadout(tmp_path, shell_tool(recorder=rec), approvals={"mode": mode})
    result = run(Executor(lo, approver=approver), "run", {"command": "git reset --hard"})
    assert bool(rec.ran) is ran and result.ok is ran
    if not ran:
        assert result.error is not None and "[git-discard-work]" in result.error.message
    [record] = audit(tmp_path)
    assert record["rule"] == "git-discard-work" and record["subject"] == "git reset --hard"


def test_safe_commands_run_unasked_and_are_recorded(tmp_path: Path) -> None:
    rec = Recorder()
    answers = Answers([])
    lo = loadout(tmp_path, shell_tool(recorder=rec))
    assert run(Executor(lo, approver=CallbackApprover(answers)), "run", {"command": "ls -la | grep x"}).ok
    assert answers.requests == [] and rec.ran == [{"command": "ls -la | grep x"}]
    [record] = audit(tmp_path)
    assert (record["decision"], record["outcome"], record["rule"]) == ("allow", "allowed", None)


def test_a_session_grant_covers_the_same_normalised_command_and_nothing_else(tmp_path: Path) -> None:
    rec = Recorder()
    answers = Answers([ApprovalAnswer(True, "session")])
    lo = loadout(tmp_path, shell_tool(recorder=rec))
    grants = Grants()

    def call(command: str) -> bool:
        ex = Executor(lo, approver=CallbackApprover(answers), grants=grants)  # a new executor each time
        return run(ex, "run", {"command": command}).ok

    assert call("git reset --hard")
    assert call("git   reset   --hard   # again")  # the same command, laid out differently
    assert len(answers.requests) == 1
    # Same rule, other command; same category, other rule: both asked (and refused: no answers left).
    assert not call("git reset --hard HEAD~3")
    assert not call("git clean -fdx")
    assert len(answers.requests) == 3
    assert [r.rule for r in answers.requests] == ["git-discard-work"] * 3
    assert [r.subject for r in answers.requests][1:] == ["git reset --hard HEAD~3", "git clean -fdx"]
    # Another session does not inherit the grant.
    assert not run(
        Executor(lo, approver=CallbackApprover(answers)), "run", {"command": "git reset --hard"}
    ).ok
    outcomes = [r["outcome"] for r in audit(tmp_path)]
    assert outcomes == ["approved", "granted", "refused", "refused", "refused"]


def test_an_always_grant_is_saved_privately_and_bound_to_the_workspace(tmp_path: Path) -> None:
    rec = Recorder()
    answers = Answers([ApprovalAnswer(True, "always")])
    lo = loadout(tmp_path, shell_tool(recorder=rec))
    assert run(Executor(lo, approver=CallbackApprover(answers)), "run", {"command": "crontab -r"}).ok
    saved = tmp_path / "home" / "grants.jsonl"
    assert saved.stat().st_mode & 0o777 == 0o600
    assert '"subject": "crontab -r"' in saved.read_text() and '"rule": "crontab-replace"' in saved.read_text()
    # A later process (new executor, new session grants, no approver at all) runs it unasked.
    assert run(Executor(lo), "run", {"command": "crontab  -r"}).ok
    assert len(answers.requests) == 1 and len(rec.ran) == 2
    # Another workspace under the same home is asked again.
    other = tmp_path / "other"
    other.mkdir()
    lo_other = loadout(tmp_path, shell_tool(recorder=rec), sandbox={"workspace": str(other)})
    assert not run(Executor(lo_other), "run", {"command": "crontab -r"}).ok
    assert [r["outcome"] for r in audit(tmp_path)] == ["approved", "granted", "refused"]
    assert audit(tmp_path)[1]["scope"] == "always"


@pytest.mark.parametrize("spoil", ["symlink", "world_writable"])
def test_an_unsafe_grants_file_grants_nothing(tmp_path: Path, spoil: str) -> None:
    lo = loadout(tmp_path, shell_tool())
    assert run(Executor(lo, approver=AutoApprover()), "run", {"command": "crontab -r"}).ok
    answers = Answers([ApprovalAnswer(True, "always")])
    assert run(Executor(lo, approver=CallbackApprover(answers)), "run", {"command": "crontab -r"}).ok
    saved = tmp_path / "home" / "grants.jsonl"
    assert run(Executor(lo), "run", {"command": "crontab -r"}).ok  # the saved grant works
    if spoil == "symlink":
        real = tmp_path / "elsewhere.jsonl"
        saved.rename(real)
        saved.symlink_to(real)
    else:
        saved.chmod(0o666)
    result = run(Executor(lo), "run", {"command": "crontab -r"})
    assert result.error is not None and result.error.type == "denied"
    assert "saved grants ignored" in audit(tmp_path)[-1]["note"]


def test_a_grant_that_cannot_be_saved_is_kept_for_the_session_and_noted(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "grants.jsonl").mkdir()  # not a file: the grant cannot be written
    answers = Answers([ApprovalAnswer(True, "always")])
    lo = loadout(tmp_path, shell_tool())
    grants = Grants()
    assert run(
        Executor(lo, approver=CallbackApprover(answers), grants=grants), "run", {"command": "crontab -r"}
    ).ok
    assert run(Executor(lo, grants=grants), "run", {"command": "crontab -r"}).ok
    first = audit(tmp_path)[0]
    assert first["outcome"] == "approved" and "kept for this session only" in first["note"]


def test_an_audit_log_that_cannot_be_written_stops_the_call(tmp_path: Path) -> None:
    rec = Recorder()
    target = tmp_path / "real.jsonl"
    target.write_text("")
    link = tmp_path / "audit.jsonl"
    link.symlink_to(target)
    lo = loadout(tmp_path, shell_tool(recorder=rec), approvals={"audit_log": str(link)})
    result = run(Executor(lo), "run", {"command": "ls"})
    assert result.error is not None and result.error.type == "denied"
    assert "audit log cannot be written" in result.error.message and "symlink" in result.error.message
    assert "approvals.audit_log" in result.error.message
    assert rec.ran == [] and target.read_text() == ""


def test_the_audit_log_goes_where_the_config_says_relative_to_the_config_file(tmp_path: Path) -> None:
    from tooldeck import load_config

    (tmp_path / "ws").mkdir()
    (tmp_path / "tooldeck.yaml").write_text(
        "approvals: {audit_log: logs/decisions.jsonl}\nsandbox: {workspace: ws}\n"
    )
    config = load_config(tmp_path / "tooldeck.yaml")
    lo = loadout(tmp_path, shell_tool())
    lo = type(lo)(lo.platform, lo.exposed, (), (), lo.descriptions, {}, config=config)
    assert run(Executor(lo), "run", {"command": "echo hi"}).ok
    [line] = (tmp_path / "logs" / "decisions.jsonl").read_text().splitlines()
    assert '"subject": "echo hi"' in line
    assert (tmp_path / "logs" / "decisions.jsonl").stat().st_mode & 0o777 == 0o600


def test_destructive_tools_ask_and_file_edits_do_not_unless_configured(tmp_path: Path) -> None:
    rec = Recorder()
    mcp_delete = plain_tool("mcp__gh__delete_repo", recorder=rec, destructive=True, source="mcp")
    write_file = plain_tool("write_file", recorder=rec, destructive=True, approval="allow")  # as the built-in
    reader = plain_tool("mcp__gh__list", recorder=rec, destructive=False, read_only=True, source="mcp")
    answers = Answers([True])
    lo = loadout(tmp_path, mcp_delete, write_file, reader)
    ex = Executor(lo, approver=CallbackApprover(answers))
    assert run(ex, "mcp__gh__delete_repo", {"x": "tooldeck"}).ok
    assert run(ex, "write_file", {"x": "a"}).ok and run(ex, "mcp__gh__list", {"x": "a"}).ok
    [asked] = answers.requests
    assert asked.rule == "destructive:mcp__gh__delete_repo" and asked.call.arguments == {"x": "tooldeck"}
    assert (
        asked.to_json()["arguments"] == {"x": "tooldeck"}
        and asked.to_json()["tool"] == "mcp__gh__delete_repo"
    )
    # Per-tool modes: edits asked about, a glob denies, a name allows.
    lo = loadout(
        tmp_path,
        mcp_delete,
        write_file,
        approvals={"tools": {"write_file": "ask", "mcp__gh__*": "deny", "mcp__gh__delete_repo": "allow"}},
    )
    denied = run(Executor(lo), "write_file", {"x": "a"})
    assert denied.error is not None and "is marked destructive" in denied.error.message
    assert run(Executor(lo), "mcp__gh__delete_repo", {"x": "b"}).ok


def test_a_shell_tool_without_a_command_argument_is_asked_about_every_time(tmp_path: Path) -> None:
    answers = Answers([ApprovalAnswer(True, "session")])
    lo = loadout(tmp_path, shell_tool("opaque", param="script"))
    ex = Executor(lo, approver=CallbackApprover(answers))
    assert run(ex, "opaque", {"script": "ls"}).ok
    assert answers.requests[0].rule == "shell-tool:opaque"


def test_code_arguments_are_analysed_as_the_python_they_are(tmp_path: Path) -> None:
    rec = Recorder()
    lo = loadout(tmp_path, shell_tool("py", recorder=rec, param="code"), approvals={"mode": "allow"})
    blocked = run(Executor(lo), "py", {"code": "import os\nos.system('rm -rf /')"})
    assert blocked.error is not None and "[delete-root]" in blocked.error.message
    assert run(Executor(lo), "py", {"code": "print('rm -rf /')"}).ok
    assert rec.ran == [{"code": "print('rm -rf /')"}]


def test_callback_answers_as_mappings_and_malformed_answers(tmp_path: Path) -> None:
    answers = Answers([{"approved": True, "scope": "session"}, {"approved": "yes"}])
    lo = loadout(tmp_path, shell_tool())
    grants = Grants()
    ex = Executor(lo, approver=CallbackApprover(answers), grants=grants)
    assert run(ex, "run", {"command": "sudo reboot"}).ok
    assert run(ex, "run", {"command": "sudo reboot"}).ok  # the session grant from the mapping
    refused = run(ex, "run", {"command": "history -c"})
    assert refused.error is not None and "malformed approval answer" in refused.error.message


def test_a_callback_that_does_not_answer_in_time_is_a_no(tmp_path: Path) -> None:
    rec = Recorder()
    lo = loadout(tmp_path, shell_tool(recorder=rec), approvals={"timeout_s": 0.3})
    seen: list[float | None] = []
    answered, finished = threading.Event(), threading.Event()

    def slow(request: ApprovalRequest) -> bool:  # a gateway waiting on a person, in a thread
        seen.append(request.timeout_s)
        answered.wait(60)
        finished.set()
        return True

    async def never(request: ApprovalRequest) -> bool:
        await asyncio.Event().wait()
        return True

    try:
        for fn in (slow, never):
            result = run(Executor(lo, approver=CallbackApprover(fn)), "run", {"command": "sudo reboot"})
            assert result.error is not None and "no answer within 0.3 s" in result.error.message
        assert not finished.is_set()  # refused while the person was still being asked
    finally:
        answered.set()
    assert seen == [0.3] and rec.ran == []
    assert [r["note"] for r in audit(tmp_path)] == ["no answer within 0.3 s"] * 2


def test_identical_calls_in_one_batch_are_asked_about_once_when_the_first_is_granted(tmp_path: Path) -> None:
    from tooldeck._core.execution.types import ToolCall

    rec = Recorder()
    answers = Answers([ApprovalAnswer(True, "session")])
    lo = loadout(tmp_path, shell_tool(recorder=rec))
    ex = Executor(lo, approver=CallbackApprover(answers))
    calls = [ToolCall(f"c{i}", "run", {"command": "crontab -r"}) for i in range(3)]
    results = asyncio.run(ex.execute(calls))
    assert all(r.ok for r in results) and len(rec.ran) == 3
    assert len(answers.requests) == 1
    assert sorted(r["outcome"] for r in audit(tmp_path)) == ["approved", "granted", "granted"]
