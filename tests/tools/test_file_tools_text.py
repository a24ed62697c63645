"""read_file / write_file / patch on real files of every kind: encodings, line endings, byte-order
marks, binary and special files, merge conflicts, and hostile input (control characters, lone
surrogates, huge arguments). Every call goes through the real executor."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from tests.tools.helpers import ws_loadout

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck.tools.files import patch, read_file, write_file


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def call(ws: Path, name: str, **args: object) -> ToolResult:
    ex = Executor(ws_loadout(ws, read_file, write_file, patch))
    [result] = asyncio.run(ex.execute([ToolCall("c1", name, args)]))
    return result


def error(result: ToolResult) -> str:
    assert result.error is not None, result.content
    return result.error.message


# -- encodings: every byte the edit does not touch stays as it was ---------------------------


def test_a_latin1_file_is_flagged_patched_in_latin1_and_nothing_else_changes(ws: Path) -> None:
    original = "café = 1\nnaïve = 'ü'\nfin\n".encode("latin-1")
    (ws / "old.py").write_bytes(original)
    shown = call(ws, "read_file", path="old.py").content
    assert "1|café = 1" in shown and "not UTF-8" in shown and "Windows-1252" in shown
    done = call(ws, "patch", path="old.py", old_string="café = 1", new_string="café = 2")
    assert done.ok, done.content
    assert (ws / "old.py").read_bytes() == original.replace(b"caf\xe9 = 1", b"caf\xe9 = 2")


def test_characters_a_single_byte_file_cannot_hold_are_refused(ws: Path) -> None:
    original = "prix: 5 €\n".encode("cp1252")
    (ws / "p.txt").write_bytes(original)
    message = error(call(ws, "patch", path="p.txt", old_string="prix: 5", new_string="prix ✓ 5"))
    assert "Windows-1252" in message and "'✓'" in message and "nothing was written" in message
    assert (ws / "p.txt").read_bytes() == original


def test_invalid_utf8_bytes_are_kept_byte_for_byte(ws: Path) -> None:
    original = b"ok \xc3\xa9\nbroken \xff\xfe here\nend\n"
    (ws / "m.txt").write_bytes(original)
    shown = call(ws, "read_file", path="m.txt").content
    assert "2|broken \ufffd\ufffd here" in shown and "2 bytes in m.txt are not valid UTF-8" in shown
    assert call(ws, "patch", path="m.txt", old_string="end", new_string="fin").ok
    assert (ws / "m.txt").read_bytes() == original.replace(b"end", b"fin")


def test_a_byte_order_mark_and_crlf_survive_patch_and_write(ws: Path) -> None:
    (ws / "b.txt").write_bytes(b"\xef\xbb\xbffirst\r\nsecond\r\n")
    shown = call(ws, "read_file", path="b.txt").content
    assert shown.startswith("1|first\n2|second") and "CRLF" in shown
    assert call(ws, "patch", path="b.txt", old_string="first\nsecond", new_string="one\ntwo").ok
    assert (ws / "b.txt").read_bytes() == b"\xef\xbb\xbfone\r\ntwo\r\n"
    written = call(ws, "write_file", path="b.txt", content="x\ny\n")
    assert "kept its byte-order mark, its CRLF line endings" in written.content
    assert (ws / "b.txt").read_bytes() == b"\xef\xbb\xbfx\r\ny\r\n"


def test_write_file_keeps_a_single_byte_encoding_when_it_can(ws: Path) -> None:
    (ws / "l.txt").write_bytes("vieux é\n".encode("cp1252"))
    assert "kept its Windows-1252" in call(ws, "write_file", path="l.txt", content="neuf è\n").content
    assert (ws / "l.txt").read_bytes() == "neuf è\n".encode("cp1252")
    moved = call(ws, "write_file", path="l.txt", content="emoji 🙂\n").content
    assert "now UTF-8" in moved and (ws / "l.txt").read_text(encoding="utf-8") == "emoji 🙂\n"


# -- binary and special files ----------------------------------------------------------------


def test_binary_files_are_refused_by_read_and_patch_naming_read_file(ws: Path) -> None:
    (ws / "blob.dat").write_bytes(b"head\x00\x01\x02tail")
    (ws / "wide.txt").write_bytes("utf16".encode("utf-16"))
    assert "binary" in error(call(ws, "read_file", path="blob.dat"))
    message = error(call(ws, "patch", path="blob.dat", old_string="head", new_string="HEAD"))
    assert "binary" in message and "read_file" in message
    assert "UTF-16" in error(call(ws, "patch", path="wide.txt", old_string="utf", new_string="x"))
    assert (ws / "blob.dat").read_bytes() == b"head\x00\x01\x02tail"


def test_pipes_are_not_opened(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    assert "not a regular file" in error(call(ws, "read_file", path="pipe"))  # and does not hang
    assert "not a regular file" in error(call(ws, "patch", path="pipe", old_string="a", new_string="b"))


def test_merge_conflict_markers_are_flagged(ws: Path) -> None:
    (ws / "c.py").write_text("x = 1\n<<<<<<< HEAD\ny = 2\n=======\ny = 3\n>>>>>>> feature\n")
    assert "merge-conflict markers at lines 2, 4, 6" in call(ws, "read_file", path="c.py").content
    (ws / "fine.py").write_text("s = '<<<<<<< not at line start'\n")
    assert "conflict" not in call(ws, "read_file", path="fine.py").content


# -- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("a\x00b.txt", "NUL"),
        ("a\nb.txt", "control character"),
        ("x" * 5000, "limit is 4096"),
        ("d/" + "n" * 300, "longer than 255 bytes"),
        ("~/notes.txt", "outside the workspace"),
    ],
)
def test_hostile_paths_are_refused_with_the_reason(ws: Path, path: str, why: str) -> None:
    for name, args in (("read_file", {}), ("write_file", {"content": "x"})):
        result = call(ws, name, path=path, **args)
        assert result.error is not None and result.error.type == "denied", result.content
        assert why in result.error.message


def test_text_that_is_not_valid_unicode_never_reaches_the_file_tools(ws: Path) -> None:
    # Unpaired surrogates are refused as invalid arguments before any tool runs.
    for name, args in (
        ("read_file", {"path": "bad\ud800.txt"}),
        ("write_file", {"path": "a.txt", "content": "x\udc80y"}),
    ):
        result = call(ws, name, **args)
        assert result.error is not None and result.error.type == "invalid_arguments"
        assert "unpaired surrogate" in result.error.message
    assert not (ws / "a.txt").exists()


def test_hostile_content_is_refused_with_line_and_column(ws: Path) -> None:
    message = error(call(ws, "write_file", path="a.txt", content="fine\nbad \x00 byte\n"))
    assert "control character" in message and "line 2, column 5" in message
    (ws / "t.txt").write_text("alpha\n")
    assert "control character" in error(
        call(ws, "patch", path="t.txt", old_string="alpha", new_string="a\x07")
    )
    assert call(ws, "write_file", path="ok.txt", content="tab\tesc\x1b[0m form\x0c\n").ok  # ordinary controls


def test_huge_arguments_are_refused_before_anything_is_read(ws: Path) -> None:
    (ws / "t.txt").write_text("alpha\n")
    message = error(call(ws, "patch", path="t.txt", old_string="a" * 2_000_000, new_string="b"))
    assert "old_string is 2,000,000 characters; the limit is" in message
    assert "limit is" in error(call(ws, "write_file", path="big.txt", content="x" * 11_000_000))
    assert "limit is" in error(call(ws, "patch", mode="patch", patch="+" * 3_000_000))


def test_huge_files_are_not_loaded_for_editing(ws: Path) -> None:
    with (ws / "huge.log").open("wb") as fh:
        fh.truncate(17 * 1024 * 1024)
    assert "edits files up to 16 MB" in error(
        call(ws, "patch", path="huge.log", old_string="a", new_string="b")
    )


def test_write_file_refuses_read_file_output(ws: Path) -> None:
    (ws / "src.py").write_text("import os\n\nprint(os.getcwd())\n")
    shown = call(ws, "read_file", path="src.py").content
    assert "read_file output" in error(call(ws, "write_file", path="src.py", content=shown))
    assert call(ws, "write_file", path="table.md", content="1|one\nsome text\n3|three\n").ok  # not a listing


def test_patch_arguments_per_mode(ws: Path) -> None:
    result = call(ws, "patch", path="t.txt", old_string="a")
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert "missing: new_string" in result.error.message
    assert "needs the patch text" in error(call(ws, "patch", mode="patch"))
    assert error(call(ws, "patch", mode="merge", patch="x"))  # not a mode


def test_a_fuzzy_patch_reports_its_strategy_and_shows_a_diff(ws: Path) -> None:
    (ws / "m.py").write_text("def f():\n    total = a  +  b\n    return total\n")
    done = call(ws, "patch", path="m.py", old_string="total = a + b", new_string="total = a + b + c")
    assert done.ok and "matched by whitespace_normalized" in done.content
    assert "-    total = a  +  b" in done.content and "+    total = a + b + c" in done.content
    exact = call(ws, "patch", path="m.py", old_string="return total", new_string="return total * 2")
    assert "matched exactly" in exact.content and "---" not in exact.content
