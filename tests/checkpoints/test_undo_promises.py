"""Undo never loses what it promised: a folder a command swapped for a link pointing outside is
put back (the link removed, never followed); the history that undoes earlier changes is never
evicted to pay for a new one (what would push the store over its budget is asked, naming the
size); a named pipe a command makes is a creation with an undo id like any other. Real
bubblewrap, real overlayfs, the real console script."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from support.workspace_deck import workspace_deck
from tooldeck import Deck
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult

from ..cli.clirun import tooldeck

KIB = 1024


def make_deck(tmp_path: Path, **sections: Any) -> Deck:
    return workspace_deck(tmp_path, ("terminal", "file", "code_execution"), **sections)


def term(deck: Deck, command: str, *, session: str = "agent", approver: Any = None) -> ToolResult:
    with deck.session(session_id=session, approver=approver) as s:
        return s.call_sync("terminal", {"command": command})


def test_undo_puts_back_a_folder_replaced_by_a_link_pointing_outside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    (ws / "d" / "f.txt").write_text("kept in the store\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "bystander.txt").write_text("not the workspace's\n")
    (tmp_path / "tooldeck.yaml").write_text(
        "sandbox:\n  kind: bwrap\n  workspace: ws\nhome: home\nplatform_toolsets:\n  cli: [terminal]\n"
    )
    config = str(tmp_path / "tooldeck.yaml")
    args = json.dumps({"command": f"rm -rf d && ln -s {outside} d"})
    done = tooldeck("call", "terminal", "--args", args, "-c", config)
    assert done.returncode == 0, done.stderr
    assert os.readlink(ws / "d") == str(outside)

    done = tooldeck("undo", "--force", "--json", "-c", config)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["restored"] == ["d", "d/f.txt"]
    assert not (ws / "d").is_symlink() and (ws / "d" / "f.txt").read_text() == "kept in the store\n"
    # The link was removed, not followed: what it pointed at is untouched.
    assert sorted(p.name for p in outside.iterdir()) == ["bystander.txt"]


def test_the_same_swap_undoes_without_force_and_a_normal_undo_still_works(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    (ws / "d" / "f.txt").write_text("one\n")
    (ws / "notes.md").write_text("alpha\n")
    deck = make_deck(tmp_path)
    assert term(deck, "echo beta > notes.md && mkdir -p e && echo new > e/n.txt").ok
    assert term(deck, "rm -rf d && ln -s e d").ok  # a link inside the workspace this time
    [swap, edit] = deck.checkpoints()
    assert {c.path: c.verb for c in swap.changes} == {"d": "modified", "d/f.txt": "deleted"}
    deck.undo()  # no conflict: the workspace's own entry under d is gone, as the call left it
    assert (ws / "d" / "f.txt").read_text() == "one\n" and not (ws / "d").is_symlink()
    assert (ws / "e" / "n.txt").read_text() == "new\n"  # the target of the link is left alone
    deck.undo(edit.id)  # the control: an ordinary undo
    assert (ws / "notes.md").read_text() == "alpha\n" and not (ws / "e").exists()


WRITE_17 = "for i in $(seq 1 17); do head -c 62464 /dev/urandom > big$i.bin; done"


def readme_then_17_files(tmp_path: Path, max_bytes: int, *, big: int = 0) -> tuple[Path, Deck]:
    """The attack's start at 1/1024 scale: the README removed, then 17 new 61 KiB files (or one
    existing file of `big` bytes), under a store of `max_bytes`."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("the only copy\n")
    if big:
        (ws / "big.bin").write_bytes(os.urandom(big))
    deck = make_deck(tmp_path, checkpoints={"keep": {"max_bytes": max_bytes}})
    assert term(deck, "rm README.md").ok
    if not big:
        assert term(deck, WRITE_17).ok  # new files: nothing earlier to keep
    return ws, deck


class Yes:
    """An approver saying yes to everything, keeping what it was asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer(True, "once")


def test_history_is_never_evicted_to_pay_for_a_new_change(tmp_path: Path) -> None:
    ws, deck = readme_then_17_files(tmp_path, 1024 * KIB)
    rewrite = term(deck, WRITE_17)  # their old contents (1,037 KiB) would pass the budget: held
    assert not rewrite.ok and rewrite.error is not None and rewrite.error.type == "denied"
    assert "checkpoints.keep.max_bytes" in rewrite.content and f"{17 * 62464} bytes" in rewrite.content
    # The README's checkpoint is still there, and undo brings it back.
    first = deck.checkpoints()[-1]
    assert [c.path for c in first.changes] == ["README.md"]
    deck.undo(first.id)
    assert (ws / "README.md").read_text() == "the only copy\n"
    assert not any(ws.glob("big*.bin"))


def test_a_program_past_the_budget_is_reverted_and_history_kept(tmp_path: Path) -> None:
    # execute_code takes the slower way (a look before and after): the same promise holds.
    ws, deck = readme_then_17_files(tmp_path, 1024 * KIB)
    code = "import os\nfor i in range(1, 18):\n    open(f'big{i}.bin', 'wb').write(os.urandom(62464))"
    with deck.session(session_id="agent") as s:
        rewrite = s.call_sync("execute_code", {"code": code})
    assert rewrite.error is not None and rewrite.error.type == "denied", rewrite.content
    assert "checkpoints.keep.max_bytes" in rewrite.content and "reverted" in rewrite.content
    first = deck.checkpoints()[-1]
    assert [c.path for c in first.changes] == ["README.md"]
    deck.undo(first.id)
    assert (ws / "README.md").read_text() == "the only copy\n"


def test_a_command_past_the_budget_is_asked_once_naming_the_size(tmp_path: Path) -> None:
    ws, deck = readme_then_17_files(tmp_path, 1024 * KIB)
    yes = Yes()
    assert term(deck, WRITE_17, approver=CallbackApprover(yes)).ok
    [request] = yes.asked
    assert f"{17 * 62464} bytes" in request.reason and "checkpoints.keep.max_bytes" in request.reason
    assert [c.tool for c in deck.checkpoints()] == ["terminal"] * 3  # nothing evicted
    deck.undo(deck.checkpoints()[-1].id, force=True)
    assert (ws / "README.md").read_text() == "the only copy\n"


def test_over_budget_is_asked_with_the_size_and_a_yes_lands_without_evicting(tmp_path: Path) -> None:
    ws, deck = readme_then_17_files(tmp_path, 200 * KIB, big=300 * KIB)
    yes = Yes()
    with deck.session(session_id="agent", approver=CallbackApprover(yes)) as s:
        assert s.call_sync("write_file", {"path": "big.bin", "content": "small\n"}).ok
    [request] = yes.asked
    assert request.rule == "checkpoint-over-budget:big.bin"
    assert f"{300 * KIB} bytes" in request.reason and "checkpoints.keep.max_bytes" in request.reason
    assert [c.tool for c in deck.checkpoints()] == ["write_file", "terminal"]  # nothing evicted
    deck.undo(deck.checkpoints()[-1].id, force=True)  # the big file's old bytes were never kept
    assert (ws / "README.md").read_text() == "the only copy\n"


def test_old_sessions_are_pruned_whole_but_never_the_last_two(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    deck = make_deck(tmp_path, checkpoints={"keep": {"count": 3}})
    for session, n in (("s1", 2), ("s2", 1), ("s3", 4)):
        for i in range(n):
            assert term(deck, f"echo {session}-{i} > {session}-{i}.txt", session=session).ok
    # s1 (two checkpoints) went whole; s3 and s2 stay although together they pass the count.
    assert [c.session_id for c in deck.checkpoints()] == ["s3"] * 4 + ["s2"]


def test_a_named_pipe_or_socket_a_command_makes_gets_an_undo_id(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    deck = make_deck(tmp_path)
    bind = "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")'"
    result = term(deck, f"mkfifo -m 640 pipe && {bind} && echo plain > plain.txt")
    assert result.ok, result.content
    assert stat.S_ISFIFO(os.lstat(ws / "pipe").st_mode) and os.lstat(ws / "pipe").st_mode & 0o777 == 0o640
    assert stat.S_ISSOCK(os.lstat(ws / "sock").st_mode)
    [checkpoint] = deck.checkpoints()
    assert {c.path: c.verb for c in checkpoint.changes} == {
        "pipe": "created",
        "sock": "created",
        "plain.txt": "created",
    }
    assert f"tooldeck undo {checkpoint.id}" in result.content
    assert term(deck, "rm pipe").ok  # a pipe deleted comes back too
    deck.undo()
    assert stat.S_ISFIFO(os.lstat(ws / "pipe").st_mode) and os.lstat(ws / "pipe").st_mode & 0o777 == 0o640
    deck.undo(checkpoint.id)
    assert sorted(os.listdir(ws)) == []
