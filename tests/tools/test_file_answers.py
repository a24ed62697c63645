"""The file tools give the same, precise answer for the same troublesome path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooldeck import Deck, ToolResult, parse_config


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret x\n")
    return root


def call(ws: Path, name: str, args: dict[str, object]) -> ToolResult:
    config = {
        "platform_toolsets": {"cli": ["file"]},
        "sandbox": {"workspace": str(ws)},
        "home": str(ws.parent / "home"),
    }
    with Deck(parse_config(config)) as deck:
        return deck.call_sync(name, args)


def error(result: ToolResult) -> str:
    assert result.error is not None, result.content
    return result.error.message


@pytest.mark.parametrize("target", ["outside/secret.txt", "outside", "outside/missing.txt"])
def test_a_symlink_out_of_the_workspace_gets_one_answer_from_every_tool(ws: Path, target: str) -> None:
    (ws / "link_out").symlink_to(ws.parent / target)
    answers = [
        call(ws, "read_file", {"path": "link_out"}),
        call(ws, "write_file", {"path": "link_out", "content": "x"}),
        call(ws, "search_files", {"pattern": "x", "path": "link_out"}),
        call(ws, "search_files", {"pattern": "*", "target": "files", "path": "link_out"}),
    ]
    for result in answers:
        assert "symlink that leads outside the workspace" in error(result), result.name
        assert result.error is not None and result.error.type == "denied"
    assert (ws.parent / "outside" / "secret.txt").read_text() == "secret x\n"
    assert not (ws.parent / "outside" / "missing.txt").exists()


@pytest.mark.parametrize("path", ["newdir/", "notes.txt/", "sub/./", ".", "/workspace/"])
def test_write_file_refuses_a_path_naming_a_folder(ws: Path, path: str) -> None:
    message = error(call(ws, "write_file", {"path": path, "content": "x"}))
    assert f"path {path!r} names a folder" in message
    assert sorted(p.name for p in ws.iterdir()) == ["notes.txt"]
    assert (ws / "notes.txt").read_text() == "alpha\n"


def test_write_file_still_writes_a_plain_path(ws: Path) -> None:
    result = call(ws, "write_file", {"path": "newdir/a.txt", "content": "x\n"})
    assert result.error is None, result.content
    assert (ws / "newdir" / "a.txt").read_text() == "x\n"


def test_lookalike_suggestions_are_shown_escaped(ws: Path) -> None:
    (ws / "caf\u00e9.txt").write_text("nfc\n")
    (ws / "cafe\u0301.txt").write_text("nfd\n")
    (ws / "plan.txt").write_text("p\n")
    message = error(call(ws, "read_file", {"path": "cafe.txt"}))
    assert "caf\\u00e9.txt" in message and "cafe\\u0301.txt" in message, message
    assert "caf\u00e9" not in message and "cafe\u0301" not in message
    # A lone name that looks like nothing else is shown as it is.
    (ws / "caf\u00e9.txt").unlink()
    message = error(call(ws, "read_file", {"path": "cafe.txt"}))
    assert "cafe\u0301.txt" in message and "\\u" not in message, message


def test_suggestions_with_invisible_characters_are_shown_escaped(ws: Path) -> None:
    (ws / "read\u200bme.md").write_text("x\n")
    message = error(call(ws, "read_file", {"path": "readme.md"}))
    assert "did you mean: read\\u200bme.md?" in message, message


def test_an_ambiguous_replace_reads_as_one_sentence(ws: Path) -> None:
    (ws / "amb.txt").write_text("a\nx\na\n")
    message = error(call(ws, "patch", {"path": "amb.txt", "old_string": "a", "new_string": "b"}))
    assert message.startswith("amb.txt: found 2 matches for old_string, at lines 1, 3; include more")
    assert (ws / "amb.txt").read_text() == "a\nx\na\n"
