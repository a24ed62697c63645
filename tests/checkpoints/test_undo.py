"""Every change the file tools make is checkpointed before it lands, and undo puts the workspace
back byte for byte: contents, modes, symlinks, `.git` and untracked files; what the calls made
is removed. A file changed since by someone else is a conflict that changes nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.trees import differences, snapshot
from tooldeck import Deck, parse_config
from tooldeck.errors import CheckpointConflict, CheckpointError

V4A = (
    "*** Begin Patch\n"
    "*** Add File: added/new.txt\n"
    "+made by the patch\n"
    "*** Delete File: doomed.txt\n"
    "*** Update File: src/app.py\n"
    "*** Move to: lib/main.py\n"
    "@@ def main @@\n"
    " def main():\n"
    "-    print('hello')\n"
    "+    print('hi')\n"
    "*** End Patch"
)


def git(ws: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=ws, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def project(tmp_path: Path) -> Path:
    """A git repository with history, an untracked file, an executable, a private file, a symlink."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("def main():\n    print('hello')\n")
    (ws / "run.sh").write_text("#!/bin/sh\necho run\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "secret.txt").write_text("private\n")
    (ws / "secret.txt").chmod(0o600)
    (ws / "doomed.txt").write_bytes(b"\x00\x01binary-ish\r\n")
    (ws / "notes.md").write_text("alpha\nbeta\n")
    (ws / "link-to-notes").symlink_to("notes.md")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    (ws / "untracked.log").write_text("not in git\n")
    return ws


def make_deck(tmp_path: Path, **sections: Any) -> Deck:
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws"},
        "home": "home",
        "platform_toolsets": {"cli": ["code_execution", "file"]},
    }
    data.update(sections)
    return Deck(parse_config(data, base_dir=str(tmp_path)))


def ok(deck: Deck, name: str, args: dict[str, Any]) -> str:
    result = deck.call_sync(name, args)
    assert result.ok, result.content
    return result.content


def test_undo_puts_back_every_file_tool_change_byte_for_byte(tmp_path: Path) -> None:
    ws = project(tmp_path)
    original, status = snapshot(ws), git(ws, "status", "--porcelain")
    deck = make_deck(tmp_path)
    ok(deck, "write_file", {"path": "run.sh", "content": "#!/bin/sh\necho changed\n"})
    ok(deck, "write_file", {"path": "deep/er/folder/file.txt", "content": "new\n"})
    ok(deck, "patch", {"path": "notes.md", "old_string": "beta", "new_string": "gamma"})
    ok(deck, "write_file", {"path": "link-to-notes", "content": "through the link\n"})
    ok(deck, "patch", {"mode": "patch", "patch": V4A})
    ok(deck, "write_file", {"path": ".git/info/exclude", "content": "*.tmp\n"})
    assert differences(original, snapshot(ws))  # the calls did change things

    listed = deck.checkpoints()
    assert [c.tool for c in listed] == [
        "write_file",
        "patch",
        "write_file",
        "patch",
        "write_file",
        "write_file",
    ]
    assert [c.id for c in listed] == sorted((c.id for c in listed), reverse=True)  # newest first
    v4a = listed[1]
    assert v4a.counts() == {"created": 4, "modified": 0, "deleted": 2}  # added/, lib/ and their files
    assert {"doomed.txt", "src/app.py", "lib/main.py", "added/new.txt"} <= {c.path for c in v4a.changes}
    # Writing through the symlink changed its target, and that is what was recorded.
    assert [c.path for c in listed[2].changes] == ["notes.md"]

    report = deck.undo(listed[-1].id)
    assert report.undone == [c.id for c in listed]
    assert differences(original, snapshot(ws)) == []
    assert git(ws, "status", "--porcelain") == status
    assert (ws / "run.sh").stat().st_mode & 0o777 == 0o755
    assert os.readlink(ws / "link-to-notes") == "notes.md"
    assert not (ws / "deep").exists() and not (ws / "lib").exists() and not (ws / "added").exists()
    assert deck.checkpoints() == []


def test_undo_without_an_id_undoes_only_the_last_call(tmp_path: Path) -> None:
    ws = project(tmp_path)
    deck = make_deck(tmp_path)
    ok(deck, "write_file", {"path": "notes.md", "content": "first\n"})
    after_first = snapshot(ws)
    ok(deck, "write_file", {"path": "notes.md", "content": "second\n"})
    ok(deck, "write_file", {"path": "other.txt", "content": "x\n"})
    deck.undo()
    deck.undo()
    assert differences(after_first, snapshot(ws)) == []
    assert len(deck.checkpoints()) == 1


def test_a_file_changed_since_is_a_conflict_that_changes_nothing_unless_forced(tmp_path: Path) -> None:
    ws = project(tmp_path)
    original = snapshot(ws)
    deck = make_deck(tmp_path)
    ok(deck, "write_file", {"path": "notes.md", "content": "by the model\n"})
    ok(deck, "write_file", {"path": "src/app.py", "content": "print('model')\n"})
    (ws / "notes.md").write_text("the user's own edit\n")
    edited = snapshot(ws)
    first = deck.checkpoints()[-1].id
    with pytest.raises(CheckpointConflict) as caught:
        deck.undo(first)
    assert caught.value.paths == ["notes.md"]
    assert "notes.md" in str(caught.value) and "--force" in str(caught.value)
    assert differences(edited, snapshot(ws)) == []  # nothing was restored, not even src/app.py
    assert len(deck.checkpoints()) == 2
    report = deck.undo(first, force=True)
    assert report.overwritten == ["notes.md"]
    assert differences(original, snapshot(ws)) == []


def test_nested_calls_of_execute_code_are_part_of_its_checkpoint(tmp_path: Path) -> None:
    ws = project(tmp_path)
    original = snapshot(ws)
    deck = make_deck(tmp_path)
    code = (
        "from tooldeck_tools import write_file, patch\n"
        "write_file(path='made/by/code.txt', content='from code')\n"
        "patch(path='notes.md', old_string='alpha', new_string='ALPHA')\n"
    )
    ok(deck, "execute_code", {"code": code})
    [checkpoint] = deck.checkpoints()
    assert checkpoint.tool == "execute_code"
    assert {"made/by/code.txt", "notes.md"} <= {c.path for c in checkpoint.changes}
    deck.undo()
    assert differences(original, snapshot(ws)) == []


def test_the_store_is_private_under_the_home_and_pruned(tmp_path: Path) -> None:
    ws = project(tmp_path)
    deck = make_deck(tmp_path, checkpoints={"keep": {"count": 2}})
    for i in range(4):  # four sessions: whole old sessions are pruned, never the last two
        in_session(deck, f"s{i}", "write_file", {"path": "notes.md", "content": f"version {i}\n" * 50})
    assert [c.session_id for c in deck.checkpoints()] == ["s3", "s2"]
    [folder] = (tmp_path / "home" / "checkpoints").iterdir()
    for path in [folder.parent, folder, *folder.rglob("*")]:
        mode = path.stat().st_mode & 0o777
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
    # The bytes of the pruned checkpoints are gone: the two kept hold versions 1 and 2.
    blobs = [p for p in (folder / "blobs").rglob("*") if p.is_file()]
    assert sorted(b.read_bytes()[:9] for b in blobs) == [b"version 1", b"version 2"]
    assert not any(".tooldeck" in p.name or "checkpoint" in p.name for p in ws.iterdir())
    # The tools cannot reach it.
    result = deck.call_sync("read_file", {"path": str(folder / "index.sqlite")})
    assert not result.ok


def test_a_file_too_large_to_keep_needs_approval_before_it_changes(tmp_path: Path) -> None:
    from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover

    ws = project(tmp_path)
    (ws / "big.txt").write_text("x" * 5000)
    deck = make_deck(tmp_path, checkpoints={"max_file_bytes": 1000})
    result = deck.call_sync("write_file", {"path": "big.txt", "content": "small\n"})  # nobody to ask
    assert not result.ok and result.error is not None and result.error.type == "denied"
    assert "checkpoints.max_file_bytes" in result.content
    assert (ws / "big.txt").read_text() == "x" * 5000
    asked: list[ApprovalRequest] = []

    def answer(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer(len(asked) > 1, "once")  # no, then yes

    no = deck.call_sync(
        "write_file", {"path": "big.txt", "content": "small\n"}, approver=CallbackApprover(answer)
    )
    assert no.error is not None and (ws / "big.txt").read_text() == "x" * 5000
    yes = deck.call_sync(
        "write_file", {"path": "big.txt", "content": "small\n"}, approver=CallbackApprover(answer)
    )
    assert yes.ok, yes.content
    assert (ws / "big.txt").read_text() == "small\n"
    assert [r.rule for r in asked] == ["checkpoint-too-large:big.txt"] * 2
    assert "too large to checkpoint" in asked[0].reason
    ok(deck, "write_file", {"path": "notes.md", "content": "fine\n"})  # small files change unasked
    with pytest.raises(CheckpointError, match=r"big\.txt"):
        deck.undo(deck.checkpoints()[-1].id)  # its bytes were never kept


def test_checkpoints_can_be_turned_off(tmp_path: Path) -> None:
    project(tmp_path)
    deck = make_deck(tmp_path, checkpoints={"enabled": False})
    ok(deck, "write_file", {"path": "notes.md", "content": "x\n"})
    assert deck.checkpoints() == []
    with pytest.raises(CheckpointError, match="nothing to undo"):
        deck.undo()


def test_concurrent_calls_of_one_batch_get_a_checkpoint_each(tmp_path: Path) -> None:
    from tooldeck import ToolCall

    ws = project(tmp_path)
    original = snapshot(ws)
    deck = make_deck(tmp_path)
    results = deck.call_batch_sync(
        [
            ToolCall("c1", "write_file", {"path": "notes.md", "content": "one\n"}),
            ToolCall("c2", "write_file", {"path": "src/app.py", "content": "two\n"}),
            ToolCall("c3", "read_file", {"path": "run.sh"}),  # read-only: no checkpoint
        ]
    )
    assert all(r.ok for r in results), [r.content for r in results]
    listed = deck.checkpoints()
    assert sorted((c.call_id, [ch.path for ch in c.changes]) for c in listed) == [
        ("c1", ["notes.md"]),
        ("c2", ["src/app.py"]),
    ]
    deck.undo(min(c.id for c in listed))
    assert differences(original, snapshot(ws)) == []


def in_session(deck: Deck, session_id: str, name: str, args: dict[str, Any]) -> str:
    with deck.session(session_id=session_id) as session:
        result = session.call_sync(name, args)
    assert result.ok, result.content
    return result.content


def test_keep_prunes_whole_old_sessions_by_bytes_and_age(tmp_path: Path) -> None:
    import time

    project(tmp_path)
    by_bytes = make_deck(tmp_path, checkpoints={"keep": {"max_bytes": 3000}})
    for i in range(4):
        in_session(by_bytes, f"s{i}", "write_file", {"path": "notes.md", "content": str(i) * 1000})
    # Each checkpoint keeps the 1,000 bytes notes.md held before; 3,000 bytes hold three at most
    # (the first session kept the original eleven bytes, and was the first to go).
    kept = by_bytes.checkpoints()
    assert [c.session_id for c in kept] == ["s3", "s2", "s1"]
    assert kept[0].changes[0].before.size == 1000
    from tooldeck.core import checkpoint_store

    assert checkpoint_store(by_bytes.config).stored_bytes() <= 3000
    by_age = make_deck(tmp_path, checkpoints={"keep": {"max_age_days": 0.00001}})  # under a second
    in_session(by_age, "old", "write_file", {"path": "notes.md", "content": "old\n"})
    in_session(by_age, "older", "write_file", {"path": "notes.md", "content": "older\n"})
    time.sleep(1.2)
    in_session(by_age, "new", "write_file", {"path": "notes.md", "content": "new\n"})
    # The sessions older than the bound go, but never the current one or the one before it.
    assert [c.session_id for c in by_age.checkpoints()] == ["new", "older"]
