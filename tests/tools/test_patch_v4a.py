"""patch(mode="patch"): V4A multi-file patches on real files, all or nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.tools.helpers import ws_loadout

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck.tools.files import patch
from tooldeck.tools.v4a import PatchError, parse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    print('hello')\n    return 0\n")
    (root / "src" / "util.py").write_text("def helper():\n    return 1\n")
    (root / "old.txt").write_text("obsolete\n")
    return root


def apply(ws: Path, text: str) -> ToolResult:
    ex = Executor(
        ws_loadout(
            ws,
            patch,
        )
    )
    [result] = asyncio.run(ex.execute([ToolCall("c1", "patch", {"mode": "patch", "patch": text})]))
    return result


def snapshot(ws: Path) -> dict[str, str]:
    return {p.relative_to(ws).as_posix(): p.read_text() for p in sorted(ws.rglob("*")) if p.is_file()}


def test_update_add_delete_and_move_in_one_patch(ws: Path) -> None:
    result = apply(
        ws,
        "*** Begin Patch\n"
        "*** Update File: src/app.py\n"
        "@@ def main @@\n"
        " def main():\n"
        "-    print('hello')\n"
        "+    print('hi')\n"
        "*** Add File: docs/notes.md\n"
        "+# Notes\n"
        "+\n"
        "+*** End Patch is only text here\n"
        "*** Delete File: old.txt\n"
        "*** Move File: src/util.py -> lib/util.py\n"
        "*** End Patch\n",
    )
    assert result.ok, result.content
    assert (
        "updated src/app.py (1 hunk; exact)" in result.content
        and "moved src/util.py -> lib/util.py" in result.content
    )
    assert snapshot(ws) == {
        "docs/notes.md": "# Notes\n\n*** End Patch is only text here\n",
        "lib/util.py": "def helper():\n    return 1\n",
        "src/app.py": "def main():\n    print('hi')\n    return 0\n",
    }


def test_nothing_is_written_when_any_part_fails(ws: Path) -> None:
    before = snapshot(ws)
    result = apply(
        ws,
        "*** Begin Patch\n*** Update File: src/app.py\n-    return 0\n+    return 1\n"
        "*** Update File: src/util.py\n@@ second @@\n-    return 99\n+    return 2\n"
        "*** Add File: old.txt\n+clash\n*** End Patch",
    )
    assert result.error is not None
    message = result.error.message
    assert "validation failed (no files were modified)" in message
    assert "src/util.py: hunk 1 ('second') not found" in message and "old.txt: already exists" in message
    assert snapshot(ws) == before


def test_hunks_apply_in_order_with_the_strategy_chain(ws: Path) -> None:
    (ws / "src" / "app.py").write_bytes(b"def main():\r\n    print('hello')\r\n    return 0\r\n")
    result = apply(
        ws,
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n def main():\n-  print('hello')\n+  print('a')\n"
        "@@\n-    return 0\n+    return 1\n*** End Patch",
    )
    assert result.ok, result.content
    assert (ws / "src" / "app.py").read_bytes() == b"def main():\r\n    print('a')\r\n    return 1\r\n"


def test_a_hint_places_an_ambiguous_hunk_and_an_insertion(ws: Path) -> None:
    (ws / "twice.py").write_text("def a():\n    pass\n\ndef b():\n    pass\n")
    result = apply(
        ws,
        "*** Begin Patch\n*** Update File: twice.py\n@@ def b @@\n-    pass\n+    return 2\n"
        "@@ def a @@\n+    # inserted after the hint line\n*** End Patch",
    )
    assert result.ok, result.content
    assert (ws / "twice.py").read_text() == (
        "def a():\n    # inserted after the hint line\n    pass\n\ndef b():\n    return 2\n"
    )
    missing = apply(ws, "*** Begin Patch\n*** Update File: twice.py\n@@ def zzz @@\n+x = 1\n*** End Patch")
    assert missing.error is not None and "the hint 'def zzz' occurs 0 times" in missing.error.message


def test_paths_in_a_patch_are_confined(ws: Path) -> None:
    for header in (
        "*** Add File: ../escape.txt\n+x",
        "*** Update File: /etc/hostname\n+x",
        "*** Delete File: ../../x",
    ):
        result = apply(ws, f"*** Begin Patch\n{header}\n*** End Patch")
        assert result.error is not None and result.error.type == "denied", header
    (ws / "link").symlink_to(ws.parent)
    result = apply(ws, "*** Begin Patch\n*** Add File: link/escape.txt\n+x\n*** End Patch")
    assert result.error is not None and "symlink that leads outside" in result.error.message
    assert not (ws.parent / "escape.txt").exists()


def test_move_never_overwrites_and_missing_files_are_named(ws: Path) -> None:
    result = apply(
        ws, "*** Begin Patch\n*** Move File: old.txt -> src/app.py\n*** Delete File: nope.txt\n*** End Patch"
    )
    assert result.error is not None
    assert "already exists" in result.error.message and "nope.txt: file not found" in result.error.message


def test_unreadable_patches_are_explained() -> None:
    with pytest.raises(PatchError, match="unknown patch line"):
        parse("*** Begin Patch\n*** Frobnicate File: x\n*** End Patch")
    with pytest.raises(PatchError, match="has no hunks"):
        parse("*** Begin Patch\n*** Update File: x\n*** End Patch")
    with pytest.raises(PatchError, match="lines of an added file start with"):
        parse("*** Begin Patch\n*** Add File: x\n-no\n*** End Patch")
    with pytest.raises(PatchError, match="source -> destination"):
        parse("*** Begin Patch\n*** Move File: x\n*** End Patch")
    assert parse("") == []


def test_a_patch_that_changes_nothing_is_refused(ws: Path) -> None:
    result = apply(ws, "*** Begin Patch\n*** Update File: src/util.py\n def helper():\n*** End Patch")
    assert result.error is not None and "change nothing" in result.error.message


def test_an_ambiguous_hunk_is_described_in_patch_terms(ws: Path) -> None:
    (ws / "amb.txt").write_text("a\nx\na\n")
    result = apply(ws, "*** Begin Patch\n*** Update File: amb.txt\n-a\n+b\n*** End Patch")
    assert result.error is not None
    message = result.error.message
    assert "amb.txt: hunk 1 matches 2 places, at lines 1, 3; add unchanged context lines" in message
    assert "not found" not in message and "replace_all" not in message and "Found" not in message
    hinted = apply(ws, "*** Begin Patch\n*** Update File: amb.txt\n@@ x\n-a\n+b\n*** End Patch")
    assert hinted.error is None and (ws / "amb.txt").read_text() == "a\nx\nb\n"
