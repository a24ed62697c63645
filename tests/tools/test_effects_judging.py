"""Where no copy-on-write view can be mounted, shell commands are judged the slower way (a look
before and after, held effects reverted) and never run unjudged; `explain` says, per tool, which
way its changes are judged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import tooldeck_command
from support.trees import differences, snapshot
from tooldeck import Deck, parse_config
from tooldeck.tools import effects

BIN = Path(sys.executable).parent / "tooldeck"
CONFIG = """\
platform_toolsets: {cli: [terminal, code_execution, file]}
sandbox: {kind: bwrap, workspace: ws}
home: home
"""


def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "work").mkdir(parents=True)
    for i in range(30):
        (ws / "work" / f"m{i}.py").write_text(f"value = {i}\n")
    (tmp_path / "tooldeck.yaml").write_text(CONFIG)
    return ws


def test_without_a_view_a_held_command_is_reverted_and_nothing_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = project(tmp_path)
    before = snapshot(ws)
    # A workspace whose file system cannot be an overlay's lower layer (none such can be made
    # here): the view is refused, as the launcher refuses it there.
    monkeypatch.setattr(effects, "_in_view", lambda *args, **kwargs: None)
    deck = Deck(
        parse_config(
            {
                "sandbox": {"kind": "bwrap", "workspace": "ws"},
                "home": "home",
                "platform_toolsets": {"cli": ["terminal"]},
            },
            base_dir=str(tmp_path),
        )
    )
    result = deck.call_sync("terminal", {"command": "python3 -c 'import shutil; shutil.rmtree(\"work\")'"})
    assert result.error is not None and result.error.type == "denied", result.content
    assert "no copy-on-write view" in result.content and "would delete" not in result.content
    assert differences(before, snapshot(ws)) == []
    # A small change still lands, and is checkpointed.
    assert deck.call_sync("terminal", {"command": "echo hi > note.txt"}).ok
    assert (ws / "note.txt").read_text() == "hi\n"
    [checkpoint] = deck.checkpoints()
    assert [c.path for c in checkpoint.changes] == ["note.txt"]


def explain(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tooldeck_command(), "explain", *args, "--config", str(tmp_path / "tooldeck.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_explain_says_how_each_command_tool_is_judged(tmp_path: Path) -> None:
    project(tmp_path)
    table = explain(tmp_path)
    assert table.returncode == 0, table.stderr
    assert "terminal: in a copy-on-write view of the workspace (overlayfs)" in table.stdout
    assert "execute_code: a look before and after" in table.stdout
    rows = {r["name"]: r for r in json.loads(explain(tmp_path, "--json").stdout)}
    assert rows["terminal"]["effects"].startswith("in a copy-on-write view")
    assert "its tool calls act on the workspace itself" in rows["execute_code"]["effects"]
    assert "effects" not in rows["read_file"]  # the file tools' changes go through the file layer


def test_explain_says_when_commands_are_not_judged(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / "tooldeck.yaml").write_text(CONFIG + "effects: {enabled: false}\n")
    rows = {r["name"]: r for r in json.loads(explain(tmp_path, "--json").stdout)}
    assert rows["terminal"]["effects"].startswith("not judged (effects.enabled: false)")
