"""Held effects that wait with the session (`approvals.unattended: interrupt`): a command whose
effects are held stops the turn in one `tooldeck run`; another approves it and the effects land
as the copy-on-write view saw them (the command is not run again), or, when the workspace changed
underneath meanwhile, the approval is refused naming the files and nothing changes. Real
bubblewrap and overlayfs; the model is the official SDK against the scripted server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support.cli import run_tooldeck
from tooldeck.testing.scripted_server import ScriptedServer, Turn

TIDY = (
    "import os, shutil\n"
    "f = getattr(shutil, 'rm' + 'tree')\n"
    "f('work')\n"
    "open('notes.md', 'w').write('tidied\\n')\n"
    "open('ran.log', 'a').write('ran\\n')\n"
    "print('tidied the work folder')\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "work").mkdir(parents=True)
    for i in range(12):
        (ws / "work" / f"m{i}.py").write_text(f"value = {i}\n")
    (ws / "notes.md").write_text("alpha\n")
    (ws / "tidy.py").write_text(TIDY)
    (tmp_path / "tooldeck.yaml").write_text(
        "sandbox: {kind: bwrap, workspace: ws}\nhome: home\n"
        "platform_toolsets: {cli: [terminal]}\napprovals: {unattended: interrupt}\neffects: {max_deletions: 3}\n"
    )
    return tmp_path


def tooldeck(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_tooldeck(project, *args)


def test_held_effects_land_as_seen_on_approval_and_are_refused_after_a_conflicting_change(
    project: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(Turn(calls=[("terminal", {"command": "python3 tidy.py"})]), Turn(text="Tidied."))
    model = ("--model", "m", "--base-url", scripted_server.openai_url)
    ws = project / "ws"
    first = tooldeck(project, "run", "tidy up", *model, "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["status"] == "interrupted", (out, scripted_server.requests[-1].tool_results())
    (pending,) = out["interrupt"]["pending"]
    assert pending["tool"] == "terminal" and "would delete" in pending["reason"], pending
    assert sorted(p.name for p in (ws / "work").iterdir()) == sorted(f"m{i}.py" for i in range(12))
    assert not (ws / "ran.log").exists()  # nothing of it reached the workspace

    (ws / "notes.md").write_text("changed meanwhile\n")
    sid, call_id = out["session_id"], pending["call_id"]
    refused = tooldeck(project, "run", "--resume", sid, "--approve", call_id, *model)
    assert refused.returncode == 2, refused.stderr
    assert "notes.md" in refused.stderr and "changed" in refused.stderr
    assert (ws / "work").is_dir() and (ws / "notes.md").read_text() == "changed meanwhile\n"

    (ws / "notes.md").write_text("alpha\n")  # as it was when the effects were seen
    approved = tooldeck(project, "run", "--resume", sid, "--approve", call_id, *model)
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.strip() == "Tidied."
    assert not (ws / "work").exists() and (ws / "notes.md").read_text() == "tidied\n"
    assert (ws / "ran.log").read_text() == "ran\n"  # landed as seen: the command did not run again
    (result,) = scripted_server.requests[1].tool_results()
    assert "tidied the work folder" in result[1] and "workspace changed" in result[1]


def test_held_effects_landed_on_approval_are_checkpointed_and_undone(
    project: Path, scripted_server: ScriptedServer
) -> None:
    """Landed in another process, the effects are that call's checkpoint (its id, its session):
    `tooldeck checkpoints` lists it and `tooldeck undo` puts the workspace back."""
    scripted_server.add(Turn(calls=[("terminal", {"command": "python3 tidy.py"})]), Turn(text="Tidied."))
    model = ("--model", "m", "--base-url", scripted_server.openai_url)
    ws = project / "ws"
    first = json.loads(tooldeck(project, "run", "tidy up", *model, "--json").stdout)
    assert first["status"] == "interrupted", first
    sid, call_id = first["session_id"], first["interrupt"]["pending"][0]["call_id"]
    assert json.loads(tooldeck(project, "checkpoints", "--json").stdout) == []  # nothing landed yet

    approved = tooldeck(project, "run", "--resume", sid, "--approve", call_id, *model)
    assert approved.returncode == 0, approved.stderr
    assert not (ws / "work").exists() and (ws / "ran.log").exists()
    (checkpoint,) = json.loads(tooldeck(project, "checkpoints", "--json").stdout)
    assert (checkpoint["tool"], checkpoint["call_id"], checkpoint["session_id"]) == ("terminal", call_id, sid)
    assert checkpoint["finished"] and checkpoint["deleted"] == 13 and checkpoint["created"] == 1
    assert {"work", "work/m0.py", "notes.md", "ran.log"} <= set(checkpoint["paths"])
    (result,) = scripted_server.requests[1].tool_results()
    assert f"tooldeck undo {checkpoint['id']}" in result[1]  # the model is told how to undo it

    undone = tooldeck(project, "undo", "--json")
    assert undone.returncode == 0, undone.stderr
    assert sorted(p.name for p in (ws / "work").iterdir()) == sorted(f"m{i}.py" for i in range(12))
    assert (ws / "work" / "m7.py").read_text() == "value = 7\n"
    assert (ws / "notes.md").read_text() == "alpha\n" and not (ws / "ran.log").exists()
