"""V4A `*** Move to:` (rename while updating) on real files, confined and never overwriting."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tooldeck import Deck, ToolResult, parse_config
from tooldeck.tools.v4a import PatchError, parse

UPDATE_AND_MOVE = (
    "*** Begin Patch\n"
    "*** Update File: src/app.py\n"
    "*** Move to: lib/main.py\n"
    "@@ def main @@\n"
    " def main():\n"
    "-    print('hello')\n"
    "+    print('hi')\n"
    "*** End Patch"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    print('hello')\n    return 0\n")
    (root / "src" / "app.py").chmod(0o750)
    (root / "taken.py").write_text("keep me\n")
    return root


def apply(ws: Path, text: str) -> ToolResult:
    config = {
        "platform_toolsets": {"cli": ["file"]},
        "sandbox": {"workspace": str(ws)},
        "home": str(ws.parent / "home"),
    }
    with Deck(parse_config(config)) as deck:
        return deck.call_sync("patch", {"mode": "patch", "patch": text})


def test_update_with_move_to_renames_and_edits(ws: Path) -> None:
    result = apply(ws, UPDATE_AND_MOVE)
    assert result.error is None, result.content
    assert "updated src/app.py" in result.content and "moved it to lib/main.py" in result.content
    assert not (ws / "src" / "app.py").exists()
    moved = ws / "lib" / "main.py"
    assert moved.read_text() == "def main():\n    print('hi')\n    return 0\n"
    assert os.stat(moved).st_mode & 0o777 == 0o750  # the file keeps its permissions


def test_move_to_without_hunks_is_a_rename(ws: Path) -> None:
    result = apply(ws, "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: renamed.py\n*** End Patch")
    assert result.error is None, result.content
    assert "moved src/app.py -> renamed.py" in result.content
    assert (ws / "renamed.py").read_text().startswith("def main():\n    print('hello')")
    assert not (ws / "src" / "app.py").exists()


@pytest.mark.parametrize(
    ("dest", "why"),
    [("taken.py", "already exists"), ("../out.py", "contains '..'"), ("/etc/x.py", "outside the workspace")],
)
def test_move_to_never_overwrites_or_leaves_the_workspace(ws: Path, dest: str, why: str) -> None:
    text = UPDATE_AND_MOVE.replace("lib/main.py", dest)
    result = apply(ws, text)
    assert result.error is not None and why in result.error.message, result.content
    assert (ws / "taken.py").read_text() == "keep me\n"
    assert (ws / "src" / "app.py").read_text().startswith("def main():\n    print('hello')")
    assert not (ws.parent / "out.py").exists()


def test_move_to_through_a_symlink_out_is_refused(ws: Path) -> None:
    (ws / "out").symlink_to(ws.parent)
    result = apply(ws, UPDATE_AND_MOVE.replace("lib/main.py", "out/escaped.py"))
    assert result.error is not None and "symlink that leads outside" in result.error.message
    assert not (ws.parent / "escaped.py").exists() and (ws / "src" / "app.py").exists()


def test_move_to_must_follow_an_update_line() -> None:
    with pytest.raises(PatchError, match="right after an '\\*\\*\\* Update File:' line"):
        parse("*** Begin Patch\n*** Add File: a\n*** Move to: b\n+x\n*** End Patch")
    with pytest.raises(PatchError, match="right after"):
        parse("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch")
    with pytest.raises(PatchError, match="needs the new path"):
        parse("*** Begin Patch\n*** Update File: a\n*** Move to:\n*** End Patch")
    [op] = parse("*** Begin Patch\n*** Update File: a\n*** Move to: b/c\n-x\n+y\n*** End Patch")
    assert (op.kind, op.path, op.dest) == ("update", "a", "b/c")
