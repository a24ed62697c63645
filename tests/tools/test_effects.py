"""Shell commands run against a copy-on-write view of the workspace (real bubblewrap, real
overlayfs): their effects are judged before they land, held ones leave the workspace byte for
byte as it was, and what lands is checkpointed and undoable."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.readable_packages import readable_packages
from support.trees import differences, snapshot
from tooldeck import Deck, parse_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult


def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "work" / "pkg").mkdir(parents=True)
    for i in range(30):
        (ws / "work" / "pkg" / f"m{i}.py").write_text(f"value = {i}\n")
    (ws / "notes.md").write_text("alpha\n")
    (ws / "run.sh").write_text("#!/bin/sh\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "link").symlink_to("notes.md")
    # "Tidies" the project: in truth deletes all of it, names built from pieces.
    (ws / "tools").mkdir()
    (ws / "tools" / "tidy.py").write_text(
        "import os, shutil\n"
        "f = getattr(shutil, 'rm' + 'tree')\n"
        "for n in os.listdir('.'):\n"
        "    try:\n"
        "        f(n) if os.path.isdir(n) and not os.path.islink(n) else os.unlink(n)\n"
        "    except OSError:\n"
        "        pass  # the read-only protected paths\n"
        "print('left:', sorted(os.listdir('.')))\n"
    )
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run(["git", "init", "-q"], cwd=ws, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=ws, env=env, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"],
        cwd=ws,
        env=env,
        check=True,
    )
    return ws


def make_deck(tmp_path: Path, **sections: Any) -> Deck:
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws"},
        "home": "home",
        "platform_toolsets": {"cli": ["terminal", "file"]},
    }
    data.update(sections)
    return Deck(parse_config(data, base_dir=str(tmp_path)))


def term(deck: Deck, command: str, approver: Any = None) -> ToolResult:
    return deck.call_sync("terminal", {"command": command}, approver=approver)


def test_a_held_call_leaves_the_workspace_byte_identical(tmp_path: Path) -> None:
    ws = project(tmp_path)
    before = snapshot(ws)
    deck = make_deck(tmp_path)
    # A project's own script looks like any other to static analysis; what it does is seen.
    result = term(deck, "python3 tools/tidy.py")
    assert result.error is not None and result.error.type == "denied", result.content
    assert "effects were held" in result.content and "would delete" in result.content
    assert "effects.max_deletions" in result.content and "work/" in result.content
    assert differences(before, snapshot(ws)) == []
    # Refused one way or the other (by the analyser, or by its effects), it changes nothing.
    for attack in (
        "rm -rf $(ls -A)",
        "python3 -c \"import os; getattr(os, 'sys' + 'tem')('rm -rf ./* ./.git')\"",
    ):
        result = term(deck, attack)
        assert result.error is not None and result.error.type == "denied", result.content
        assert differences(before, snapshot(ws)) == []
    assert deck.checkpoints() == []


def test_approved_effects_land_at_once_and_undo_puts_them_back(tmp_path: Path) -> None:
    ws = project(tmp_path)
    before = snapshot(ws)
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer(True, "once")

    deck = make_deck(tmp_path)
    result = term(deck, "rm -rf work && echo gone", approver=CallbackApprover(approve))
    assert result.ok, result.content
    assert [r.rule.startswith("effects:") for r in asked] == [True]
    assert "would delete 30 files under work/" in asked[0].reason
    assert not (ws / "work").exists()
    assert "[workspace changed: deleted 30 files under work/; undo: tooldeck undo" in result.content
    [checkpoint] = deck.checkpoints()
    assert checkpoint.tool == "terminal" and checkpoint.counts()["deleted"] == 32  # 30 files, 2 folders
    deck.undo()
    assert differences(before, snapshot(ws)) == []


def test_small_changes_land_without_asking_and_are_checkpointed(tmp_path: Path) -> None:
    ws = project(tmp_path)
    before = snapshot(ws)
    deck = make_deck(tmp_path)
    command = (
        "echo beta >> notes.md; chmod 700 run.sh; ln -sfn run.sh link; mkdir -p new/dir; "
        "printf 'x' > new/dir/f; rm work/pkg/m0.py; : > work/pkg/m1.py"
    )
    result = term(deck, command)
    assert result.ok, result.content
    assert (ws / "notes.md").read_text() == "alpha\nbeta\n"
    assert (ws / "run.sh").stat().st_mode & 0o777 == 0o700
    assert os.readlink(ws / "link") == "run.sh"
    assert (ws / "new" / "dir" / "f").read_text() == "x"
    assert not (ws / "work" / "pkg" / "m0.py").exists() and (ws / "work" / "pkg" / "m1.py").read_text() == ""
    assert (
        "deleted 1 file: work/pkg/m0.py" in result.content
        and "emptied 1 file: work/pkg/m1.py" in result.content
    )
    deck.undo()
    assert differences(before, snapshot(ws)) == []


def test_the_bounds_are_config_keys(tmp_path: Path) -> None:
    ws = project(tmp_path)
    before = snapshot(ws)
    strict = make_deck(tmp_path, effects={"max_deletions": 0, "max_changed": 1})
    one = term(strict, "rm notes.md")
    assert one.error is not None and "effects.max_deletions is 0" in one.content
    two = term(strict, "touch a b")
    assert two.error is not None and "effects.max_changed is 1" in two.content
    assert differences(before, snapshot(ws)) == []
    # Off: commands write the workspace directly, as before this existed (and nothing is kept).
    direct = make_deck(tmp_path, effects={"enabled": False})
    assert term(direct, "rm -rf work").ok
    assert not (ws / "work").exists() and direct.checkpoints() == []


def test_a_file_too_large_to_checkpoint_is_held_and_undo_says_it_cannot_restore_it(tmp_path: Path) -> None:
    ws = project(tmp_path)
    (ws / "big.bin").write_bytes(b"b" * 5000)
    deck = make_deck(tmp_path, checkpoints={"max_file_bytes": 1000})
    held = term(deck, "printf small > big.bin")
    assert held.error is not None and "too large to checkpoint" in held.content
    assert (ws / "big.bin").read_bytes() == b"b" * 5000
    yes = CallbackApprover(lambda request: ApprovalAnswer(True, "once"))
    assert term(deck, "printf small > big.bin", approver=yes).ok
    assert (ws / "big.bin").read_bytes() == b"small"
    from tooldeck.errors import CheckpointError

    try:
        deck.undo()
    except CheckpointError as exc:
        assert "big.bin" in str(exc) and "too large" in str(exc)
    else:
        raise AssertionError("undo restored a file whose bytes were never kept")


def test_without_root_the_view_is_mounted_in_a_user_namespace_of_the_user(tmp_path: Path) -> None:
    """As an ordinary user (here: root drops to nobody, with the system Python 3.11 and this
    checkout's packages) the overlay is mounted in a user namespace owned by that user."""
    import shutil
    import tempfile

    from support.as_user import cli_as_user

    root = Path(tempfile.mkdtemp(prefix="tooldeck-effects-user-"))
    # The checkout and its venv may be private (a clone under /root): nobody gets its own copy.
    site = readable_packages()
    try:
        ws = root / "ws"
        (ws / "work").mkdir(parents=True)
        for i in range(25):
            (ws / "work" / f"f{i}").write_text(f"{i}\n")
        (root / "tooldeck.yaml").write_text("sandbox: {kind: bwrap, workspace: ws}\nhome: home\n")
        before = snapshot(ws)
        run = cli_as_user(root, site)
        held = run("call", "terminal", "--args", '{"command": "rm -rf work"}')
        assert held.returncode == 1 and "effects were held" in held.stdout, held.stdout + held.stderr
        assert differences(before, snapshot(ws)) == []
        done = run("call", "terminal", "--args", '{"command": "rm work/f1; mkdir -p q; mv work q/"}', "--yes")
        assert done.returncode == 0, done.stdout + done.stderr
        assert sorted(os.listdir(ws)) == ["q"] and len(os.listdir(ws / "q" / "work")) == 24
        assert run("undo").returncode == 0
        assert differences(before, snapshot(ws)) == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)


def test_on_the_host_effects_beyond_consent_are_reverted_from_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No copy-on-write view on the host (here: bwrap cannot run, host shells are allowed): the
    slower way looks before and after, and puts back what went beyond consent, so the workspace
    ends byte-identical all the same."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    ws = project(tmp_path)
    before = snapshot(ws)
    deck = make_deck(tmp_path, sandbox={"kind": "none", "allow_host_shell": True, "workspace": "ws"})
    held = term(deck, "rm -rf work; chmod 600 run.sh; echo new > made.txt; ln -sfn run.sh link")
    assert held.error is not None and held.error.type == "denied", held.content
    assert "ran on the host" in held.content and "were reverted" in held.content
    assert differences(before, snapshot(ws)) == []
    assert deck.checkpoints() == []
    small = term(deck, "echo beta >> notes.md; rm work/pkg/m3.py; touch work/pkg/m4.py; mkdir -p out")
    assert small.ok, small.content
    assert "changed 1 file: notes.md" in small.content and "deleted 1 file: work/pkg/m3.py" in small.content
    assert "m4.py" not in small.content  # touched: the same bytes
    deck.undo()
    assert differences(before, snapshot(ws)) == []


def test_a_program_that_deletes_the_project_is_reverted_and_its_tool_calls_still_see_its_work(
    tmp_path: Path,
) -> None:
    """The issue's own attack through execute_code, with the default `approvals.mode: ask` and
    nobody to ask: the project and its .git are back, byte for byte."""
    ws = project(tmp_path)
    before = snapshot(ws)
    deck = make_deck(tmp_path, platform_toolsets={"cli": ["code_execution", "terminal", "file"]})
    # The program imports the project's own module, which deletes the project (the analyser reads
    # the program, not what it imports).
    attack = "import sys\nsys.path.insert(0, 'tools')\nimport tidy\n"
    result = deck.call_sync("execute_code", {"code": attack})
    assert result.error is not None and result.error.type == "denied", result.content
    assert "were reverted" in result.content and "work" not in (result.error.output or "work")
    assert differences(before, snapshot(ws)) == []
    # A program's own changes and its tool calls' see each other, and land as one checkpoint.
    code = (
        "from tooldeck_tools import read_file, write_file\n"
        "open('made.txt', 'w').write('by the program\\n')\n"
        "print(read_file(path='made.txt'))\n"
        "write_file(path='notes.md', content='by a tool call\\n')\n"
        "print(open('notes.md').read())\n"
    )
    done = deck.call_sync("execute_code", {"code": code})
    assert done.ok, done.content
    assert "by the program" in done.content and "by a tool call" in done.content
    assert "[workspace changed:" in done.content
    [checkpoint] = deck.checkpoints()
    assert checkpoint.tool == "execute_code" and {c.path for c in checkpoint.changes} == {
        "made.txt",
        "notes.md",
    }
    deck.undo()
    assert differences(before, snapshot(ws)) == []
