"""`tooldeck checkpoints` and `tooldeck undo`, as the console script: listing, undoing, a
conflict (exit 2, the file named, nothing changed) and --force."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from support.trees import differences, snapshot

from .clirun import tooldeck


def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("alpha\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run(["git", "init", "-q"], cwd=ws, env=env, check=True)
    return ws


def run(*argv: str) -> tuple[int, str, str]:
    done = tooldeck(*argv)
    return done.returncode, done.stdout, done.stderr


def test_the_commands_list_and_undo_with_a_conflict_exit_code(tmp_path: Path) -> None:
    ws = project(tmp_path)
    original = snapshot(ws)
    config = tmp_path / "tooldeck.yaml"
    config.write_text("sandbox:\n  workspace: ws\nhome: home\n")
    c = str(config)
    assert run("call", "write_file", "--args", '{"path": "notes.md", "content": "one\\n"}', "-c", c)[0] == 0
    assert run("call", "write_file", "--args", '{"path": "new.txt", "content": "two\\n"}', "-c", c)[0] == 0
    code, out, _ = run("checkpoints", "--json", "-c", c)
    listed = json.loads(out)
    assert code == 0 and [(e["paths"], e["created"], e["modified"]) for e in listed] == [
        (["new.txt"], 1, 0),
        (["notes.md"], 0, 1),
    ]
    assert all(e["tool"] == "write_file" and e["session_id"] for e in listed)
    code, out, _ = run("checkpoints", "-c", c)
    assert code == 0 and "write_file" in out and "notes.md" in out
    (ws / "notes.md").write_text("edited by hand\n")
    code, _, err = run("undo", str(listed[-1]["id"]), "-c", c)
    assert code == 2 and "notes.md" in err and "--force" in err
    assert (ws / "notes.md").read_text() == "edited by hand\n" and (ws / "new.txt").exists()
    code, out, _ = run("undo", str(listed[-1]["id"]), "--force", "--json", "-c", c)
    assert code == 0 and json.loads(out)["overwritten"] == ["notes.md"]
    assert differences(original, snapshot(ws)) == []
    code, _, err = run("undo", "-c", c)
    assert code == 1 and "nothing to undo" in err


def test_undo_names_an_unknown_checkpoint(tmp_path: Path) -> None:
    project(tmp_path)
    config = tmp_path / "tooldeck.yaml"
    config.write_text("sandbox:\n  workspace: ws\nhome: home\n")
    assert run("call", "write_file", "--args", '{"path": "a.txt", "content": "x"}', "-c", str(config))[0] == 0
    code, _, err = run("undo", "999", "-c", str(config))
    assert code == 2 and "no checkpoint 999" in err
    code, _, err = run("undo", "-c", str(tmp_path / "missing.yaml"))
    assert code == 2 and "missing.yaml" in err
