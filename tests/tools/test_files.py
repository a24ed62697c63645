"""File tools (B) through the real executor, confined to a workspace (K4)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from tests.tools.helpers import ws_loadout

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck.tools.file_search import search_files
from tooldeck.tools.files import patch, read_file, write_file


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    (root / "notes.txt").write_text("alpha\nbeta\n")
    (root / "image.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    (tmp_path / "outside.txt").write_text("secret")
    return root


def call(ws: Path, name: str, **args: object) -> ToolResult:
    ex = Executor(ws_loadout(ws, read_file, write_file, patch, search_files))
    [result] = asyncio.run(ex.execute([ToolCall("c1", name, args)]))
    return result


def error(result: ToolResult) -> str:
    assert result.error is not None, result.content
    return result.error.message


def test_read_file_numbers_lines_and_pages(ws: Path) -> None:
    out = call(ws, "read_file", path="src/main.py").content
    lines = out.splitlines()
    assert lines[0] == "1|line 1" and lines[499] == "500|line 500"
    assert "showing lines 1-500 of 1200" in lines[-1] and "offset=501" in lines[-1]
    page = call(ws, "read_file", path="src/main.py", offset="1199", limit=10).content
    assert page.splitlines() == ["1199|line 1199", "1200|line 1200"]


def test_read_file_brings_an_out_of_range_offset_or_limit_within_range_and_says_so(ws: Path) -> None:
    """Hermes clamps offset to >= 1 and limit to 1..max rather than refusing the call; so does
    read_file, and its page says what it changed. The schema states no bounds for them, so the
    validator lets such values through (through the whole executor, as the model sends them)."""
    below = call(ws, "read_file", path="notes.txt", offset=0).content.splitlines()
    assert below == ["[note: offset 0 is below 1; reading from line 1]", "1|alpha", "2|beta"]
    negative = call(ws, "read_file", path="notes.txt", offset="-3", limit=-1).content.splitlines()
    assert negative == [
        "[note: offset -3 is below 1; reading from line 1]",
        "[note: limit -1 is below 1; showing 1 line]",
        "1|alpha",
        "... (showing lines 1-1 of 2 in notes.txt; read_file with offset=2 for more)",
    ]
    (ws / "long.txt").write_text("".join(f"{i}\n" for i in range(1, 6002)))
    huge = call(ws, "read_file", path="long.txt", limit=10**12).content.splitlines()
    assert huge[0] == "[note: limit 1000000000000 is over 5000; showing at most 5000 lines]"
    assert huge[1] == "1|1" and huge[5000] == "5000|5000"
    assert huge[-1] == "... (showing lines 1-5000 of 6001 in long.txt; read_file with offset=5001 for more)"
    for name in ("offset", "limit"):
        assert "minimum" not in read_file.parameters["properties"][name]
        assert "maximum" not in read_file.parameters["properties"][name]
    assert "below 1 reads from line 1" in read_file.parameters["properties"]["offset"]["description"]


def test_read_file_refuses_an_offset_that_is_not_a_number_naming_the_field(ws: Path) -> None:
    """Differs on purpose from Hermes, which reads `offset: "abc"` as the default: the schema the
    model sees says integer, and accepting text there would make it untrue (a numeric string is
    converted, as for every tool, and null means not given)."""
    message = error(call(ws, "read_file", path="notes.txt", offset="abc"))
    assert "field 'offset': expected integer, got string 'abc'" in message
    assert call(ws, "read_file", path="notes.txt", offset="2", limit=None).content == "2|beta"


def test_read_file_offset_past_the_end_and_empty_files(ws: Path) -> None:
    assert "past the end" in error(call(ws, "read_file", path="notes.txt", offset=10))
    (ws / "empty.txt").write_text("")
    assert "is empty" in call(ws, "read_file", path="empty.txt").content


def test_read_file_refuses_binary_and_directories(ws: Path) -> None:
    assert "binary" in error(call(ws, "read_file", path="image.bin"))
    (ws / "data.dat").write_bytes(b"abc\x00def")
    assert "binary" in error(call(ws, "read_file", path="data.dat"))
    assert "is a directory" in error(call(ws, "read_file", path="src"))


def test_read_file_suggests_similar_names(ws: Path) -> None:
    message = error(call(ws, "read_file", path="src/mian.py"))
    assert "file not found" in message and "src/main.py" in message
    assert "src/main.py" in error(call(ws, "read_file", path="main.py"))  # found by name elsewhere


def test_long_lines_are_cut(ws: Path) -> None:
    (ws / "wide.txt").write_text("x" * 5000 + "\n")
    out = call(ws, "read_file", path="wide.txt").content
    assert out.endswith("[line truncated]") and len(out) < 2100


def test_write_file_creates_parents_and_replaces_atomically(ws: Path) -> None:
    r = call(ws, "write_file", path="deep/er/new.txt", content="one\ntwo\n")
    assert r.ok and "created deep/er/new.txt" in r.content and "2 lines" in r.content
    assert (ws / "deep/er/new.txt").read_text() == "one\ntwo\n"
    os.chmod(ws / "notes.txt", 0o600)
    r = call(ws, "write_file", path="notes.txt", content="gamma")
    assert "replaced notes.txt" in r.content
    assert (ws / "notes.txt").read_text() == "gamma"
    assert (ws / "notes.txt").stat().st_mode & 0o777 == 0o600
    assert not [p for p in ws.rglob("*.tmp")]  # no temporary files left behind


def test_patch_replaces_a_unique_match(ws: Path) -> None:
    r = call(ws, "patch", path="notes.txt", old_string="beta", new_string="BETA")
    assert r.ok and "replaced 1 occurrence at line 2" in r.content
    assert (ws / "notes.txt").read_text() == "alpha\nBETA\n"


def test_patch_reports_zero_and_many_matches(ws: Path) -> None:
    zero = error(call(ws, "patch", path="notes.txt", old_string="gamma", new_string="x"))
    assert "0 matches" in zero
    (ws / "dup.txt").write_text("a = 1\nb = 2\na = 1\n")
    many = error(call(ws, "patch", path="dup.txt", old_string="a = 1", new_string="a = 3"))
    assert "found 2 matches" in many and "lines 1, 3" in many
    assert (ws / "dup.txt").read_text() == "a = 1\nb = 2\na = 1\n"  # unchanged
    r = call(ws, "patch", path="dup.txt", old_string="a = 1", new_string="a = 3", replace_all=True)
    assert r.ok and (ws / "dup.txt").read_text() == "a = 3\nb = 2\na = 3\n"


def test_patch_tolerates_whitespace_slips_says_so_and_keeps_crlf(ws: Path) -> None:
    (ws / "code.py").write_bytes(b"def f():\r\n    return 1\r\n")
    done = call(ws, "patch", path="code.py", old_string="return  1", new_string="return 2")
    assert done.ok and "line 2" in done.content and "matched by whitespace_normalized" in done.content
    assert (ws / "code.py").read_bytes() == b"def f():\r\n    return 2\r\n"
    assert call(ws, "patch", path="code.py", old_string="return 2", new_string="return 3").ok
    assert (ws / "code.py").read_bytes() == b"def f():\r\n    return 3\r\n"


def test_patch_refuses_empty_or_identical_strings(ws: Path) -> None:
    assert "write_file" in error(call(ws, "patch", path="notes.txt", old_string="", new_string="x"))
    assert "identical" in error(call(ws, "patch", path="notes.txt", old_string="alpha", new_string="alpha"))


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../outside.txt", "contains '..'"),
        ("src/../../outside.txt", "contains '..'"),
        ("/etc/passwd", "outside the workspace"),
    ],
)
def test_paths_that_leave_the_workspace_are_refused(ws: Path, path: str, why: str) -> None:
    for name, args in [
        ("read_file", {}),
        ("write_file", {"content": "x"}),
        ("patch", {"old_string": "a", "new_string": "b"}),
    ]:
        result = call(ws, name, path=path, **args)
        assert result.error is not None and result.error.type == "denied"
        assert why in result.error.message
    assert (ws.parent / "outside.txt").read_text() == "secret"


def test_symlinks_that_escape_are_refused(ws: Path) -> None:
    (ws / "link.txt").symlink_to(ws.parent / "outside.txt")
    (ws / "linkdir").symlink_to(ws.parent)
    for path in ("link.txt", "linkdir/outside.txt", "linkdir/new.txt"):
        result = (
            call(ws, "read_file", path=path)
            if path != "linkdir/new.txt"
            else call(ws, "write_file", path=path, content="x")
        )
        assert result.error is not None and "symlink" in result.error.message, path
    assert not (ws.parent / "new.txt").exists()
    (ws / "inner.txt").symlink_to(ws / "notes.txt")  # a symlink inside the workspace is fine
    assert call(ws, "read_file", path="inner.txt").ok


def test_absolute_and_virtual_paths_inside_the_workspace_work(ws: Path) -> None:
    assert call(ws, "read_file", path=str(ws / "notes.txt")).ok
    assert call(ws, "read_file", path="/workspace/notes.txt").content.startswith("1|alpha")


@pytest.mark.parametrize(
    "path", ["a\x00b", "bad\ud800", "../x", "x" * 5000, "", "/etc/passwd", "a/../../b", "~/x"]
)
def test_workspace_key_never_raises(ws: Path, path: str) -> None:
    from tooldeck._core.workspace import Workspace

    assert isinstance(Workspace(ws).key(path), str)
    assert Workspace(ws).key("/workspace/src//main.py") == Workspace(ws).key("src/main.py") == "src/main.py"


def test_a_missing_workspace_folder_is_reported(tmp_path: Path) -> None:
    result = call(tmp_path / "gone", "read_file", path="a.txt")
    assert result.error is not None and result.error.type == "unavailable"
    assert "cannot be opened" in result.error.message
