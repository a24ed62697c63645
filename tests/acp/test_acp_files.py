"""An ACP agent's file reads and writes through tooldeck (`fs/read_text_file`, `fs/write_text_file`):
confined to the workspace like the file tools, protected paths asked for, and every write
checkpointed with the agent's call, so `undo` takes it back byte for byte."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from support.trees import differences, snapshot
from tooldeck import Deck, parse_config
from tooldeck._core.execution.policy import ApprovalRequest, CallbackApprover

AGENT = Path(__file__).resolve().parent / "echo_agent.py"


def make_deck(tmp_path: Path, **sandbox: Any) -> Deck:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True, exist_ok=True)
    (ws / "notes.md").write_text("alpha\nbeta\ngamma\ndelta\n")
    (ws / "src" / "run.sh").write_text("#!/bin/sh\necho run\n")
    (ws / "src" / "run.sh").chmod(0o755)
    (ws / "locked.txt").write_text("do not touch\n")
    (tmp_path / "outside.txt").write_text("SECRET-OUTSIDE\n")
    data: dict[str, Any] = {
        "platform_toolsets": {"cli": ["acp"]},
        "acp_agents": {"echo": {"command": sys.executable, "args": [str(AGENT)], "timeout_s": 60}},
        "sandbox": {"workspace": "ws", "protected": ["locked.txt"], **sandbox},
        "home": "home",
    }
    return Deck(parse_config(data, base_dir=str(tmp_path)))


def said(deck: Deck, prompt: str, approver: Any = None) -> str:
    result = deck.call_sync("echo", {"prompt": prompt}, approver=approver)
    assert result.ok, result.content
    return result.content


def test_the_agent_is_offered_the_workspace_text_files(tmp_path: Path) -> None:
    assert "read=True write=True" in said(make_deck(tmp_path), "caps")


def test_an_agents_writes_are_checkpointed_and_undone_byte_for_byte(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    ws = tmp_path / "ws"
    before = snapshot(ws)
    answer = said(
        deck, "fswrite notes.md rewritten by the agent ; src/run.sh echo changed ; made/new.txt fresh"
    )
    assert "fs wrote notes.md" in answer and "fs wrote made/new.txt" in answer
    assert (ws / "notes.md").read_text() == "rewritten by the agent"
    assert (ws / "made" / "new.txt").read_text() == "fresh"
    # A replaced file keeps its mode, as the file tools' writes do.
    assert (ws / "src" / "run.sh").stat().st_mode & 0o777 == 0o755

    [checkpoint] = deck.checkpoints()
    assert checkpoint.tool == "echo"
    assert {"notes.md", "src/run.sh", "made/new.txt"} <= {c.path for c in checkpoint.changes}
    assert checkpoint.counts()["modified"] == 2

    report = deck.undo()
    assert report.undone == [checkpoint.id]
    assert differences(before, snapshot(ws)) == []


def test_reads_are_confined_and_paged(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    assert "beta\ngamma\n" in said(deck, "fsread notes.md 2 2")
    assert "delta" not in said(deck, "fsread notes.md 2 2")
    missing = said(deck, "fsread nowhere.txt")
    assert "fs refused nowhere.txt: -32002" in missing and "does not exist" in missing
    outside = said(deck, f"fsread {tmp_path / 'outside.txt'}")
    assert "fs refused" in outside and "-32602" in outside and "is outside the workspace" in outside
    assert "SECRET-OUTSIDE" not in outside


def test_writes_outside_the_workspace_are_refused_and_change_nothing(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    before = snapshot(tmp_path)
    answer = said(deck, f"fswrite {tmp_path / 'outside.txt'} overwritten ; ../escape.txt x")
    assert answer.count("fs refused") == 2
    assert differences(before, snapshot(tmp_path)) == []
    assert deck.checkpoints() == []


def test_a_protected_path_needs_the_users_approval(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    refused = said(deck, "fswrite locked.txt changed")
    assert "fs refused locked.txt: -32602" in refused and "protected" in refused
    assert (tmp_path / "ws" / "locked.txt").read_text() == "do not touch\n"

    asked: list[ApprovalRequest] = []

    def yes(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    assert "fs wrote locked.txt" in said(deck, "fswrite locked.txt changed", approver=CallbackApprover(yes))
    assert (tmp_path / "ws" / "locked.txt").read_text() == "changed"
    assert [r.rule for r in asked] == ["protected-path:locked.txt"]
    deck.undo()
    assert (tmp_path / "ws" / "locked.txt").read_text() == "do not touch\n"
