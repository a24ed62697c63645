"""search_files: ripgrep and the pure-Python walk give the same answers, both honour .gitignore."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from tests.tools.helpers import ws_loadout

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolError
from tooldeck._core.fs import ConfinedRoot
from tooldeck._core.workspace import Workspace
from tooldeck.tools.file_search import Backend, search, search_files
from tooldeck.tools.gitignore import parse, walk

BACKENDS: list[Backend] = ["python", "rg"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    files = {
        "src/app.py": "import os\ndef main():\n    return os.getcwd()\n",
        "src/util/helpers.py": "def helper():\n    return 'Main'\n",
        "src/util/data.json": '{"main": true}\n',
        "build/out.py": "def main(): pass\n",
        "logs/today.log": "main started\n",
        "logs/keep.log": "main kept\n",
        "docs/readme.md": "See main.\n",
        ".hidden/secret.py": "def main(): pass\n",
        "pkg/build/inner.py": "main = 1\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "src/blob.bin").write_bytes(b"main\x00\x01")
    (tmp_path / ".gitignore").write_text("/build/\n*.log\n!keep.log\n# comment\n")
    (tmp_path / "pkg/.gitignore").write_text("build\n")
    return tmp_path


def test_rg_is_installed_here() -> None:
    # CI installs ripgrep (scripts/setup.sh); the comparison below must really compare.
    assert shutil.which("rg") is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_content_search_skips_ignored_hidden_and_binary_files(ws: Path, backend: Backend) -> None:
    hits = search(Workspace(ws), "main", backend=backend)
    assert hits == [
        "docs/readme.md:1:See main.",
        "logs/keep.log:1:main kept",
        "src/app.py:2:def main():",
        'src/util/data.json:1:{"main": true}',
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_options_glob_case_and_subpath(ws: Path, backend: Backend) -> None:
    w = Workspace(ws)
    assert search(w, "main", ignore_case=True, file_glob="*.py", backend=backend) == [
        "src/app.py:2:def main():",
        "src/util/helpers.py:2:    return 'Main'",
    ]
    assert search(w, r"return '\w+'", path="src/util", backend=backend) == [
        "src/util/helpers.py:2:    return 'Main'"
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_file_name_search(ws: Path, backend: Backend) -> None:
    w = Workspace(ws)
    assert search(w, "*.py", target="files", backend=backend) == [
        "src/app.py",
        "src/util/helpers.py",
    ]
    assert search(w, "*.log", target="files", backend=backend) == ["logs/keep.log"]


def test_backends_agree_on_a_bigger_tree(ws: Path) -> None:
    for i in range(40):
        (ws / f"gen/d{i % 5}/f{i}.txt").parent.mkdir(parents=True, exist_ok=True)
        (ws / f"gen/d{i % 5}/f{i}.txt").write_text(
            "".join(f"row {j} {'main' if j % 7 == i % 7 else ''}\n" for j in range(30))
        )
    w = Workspace(ws)
    assert search(w, "main", backend="python") == search(w, "main", backend="rg")
    assert search(w, "f1*", target="files", backend="python") == search(
        w, "f1*", target="files", backend="rg"
    )


def test_bad_regex_and_missing_path_are_clear(ws: Path) -> None:
    with pytest.raises(ToolError, match="invalid regular expression"):
        search(Workspace(ws), "(unclosed")
    with pytest.raises(ToolError, match="file not found"):
        search(Workspace(ws), "x", path="nope")


def test_the_tool_pages_results(ws: Path) -> None:
    ex = Executor(
        ws_loadout(
            ws,
            search_files,
        )
    )
    [r] = asyncio.run(ex.execute([ToolCall("1", "search_files", {"pattern": "main", "limit": 2})]))
    assert r.content.splitlines()[:2] == ["docs/readme.md:1:See main.", "logs/keep.log:1:main kept"]
    assert "showing results 1-2 of 4" in r.content and "offset=2" in r.content
    [r] = asyncio.run(ex.execute([ToolCall("2", "search_files", {"pattern": "zzz"})]))
    assert r.ok and "no lines matching" in r.content
    [r] = asyncio.run(ex.execute([ToolCall("3", "search_files", {"pattern": "x", "path": "../"})]))
    assert r.error is not None and r.error.type == "denied"


def test_gitignore_rules() -> None:
    rules = parse("*.pyc\n/top.txt\ndocs/**/draft.md\nbuild/\n!important.pyc\n\\#lit\n")

    def matches(path: str) -> bool:
        verdict = False
        for rule in rules:
            if rule.regex.match(path):
                verdict = not rule.negated
        return verdict

    assert matches("a/b/c.pyc") and not matches("important.pyc")
    assert matches("top.txt") and not matches("sub/top.txt")
    assert matches("docs/draft.md") and matches("docs/a/b/draft.md")
    assert matches("#lit")
    assert [r.dir_only for r in rules if r.regex.match("build")] == [True]


def test_walk_prunes_ignored_directories(ws: Path) -> None:
    found = [f.path for f in walk(ConfinedRoot(ws), ())]
    assert "build/out.py" not in found and "pkg/build/inner.py" not in found
    assert ".hidden/secret.py" not in found
    assert "logs/keep.log" in found and "logs/today.log" not in found


def run_tool(ws: Path, **args: object) -> str:
    ex = Executor(
        ws_loadout(
            ws,
            search_files,
        )
    )
    [r] = asyncio.run(ex.execute([ToolCall("1", "search_files", args)]))
    assert r.ok, r.content
    return r.content


def test_output_modes_files_only_and_count(ws: Path) -> None:
    assert run_tool(ws, pattern="main", output_mode="files_only").splitlines() == [
        "docs/readme.md",
        "logs/keep.log",
        "src/app.py",
        "src/util/data.json",
    ]
    counted = run_tool(ws, pattern="e", output_mode="count", file_glob="*.py").splitlines()
    assert counted == ["src/app.py:2", "src/util/helpers.py:2", "(4 matching lines in 2 files)"]
    assert (
        run_tool(ws, pattern="getcwd", output_mode="count").splitlines()[-1] == "(1 matching line in 1 file)"
    )


def test_context_lines_around_matches(ws: Path) -> None:
    (ws / "ctx.txt").write_text(
        "".join(f"line {i}\n" for i in range(1, 11)).replace("line 4", "HIT 4").replace("line 6", "HIT 6")
    )
    out = run_tool(ws, pattern="HIT", path="ctx.txt", context=1)
    assert out.splitlines() == [
        "ctx.txt-3-line 3",
        "ctx.txt:4:HIT 4",
        "ctx.txt-5-line 5",
        "ctx.txt:6:HIT 6",
        "ctx.txt-7-line 7",
    ]
    far = run_tool(ws, pattern="line [28]", path="ctx.txt", context=1).splitlines()
    assert far == [
        "ctx.txt-1-line 1",
        "ctx.txt:2:line 2",
        "ctx.txt-3-line 3",
        "--",
        "ctx.txt-7-line 7",
        "ctx.txt:8:line 8",
        "ctx.txt-9-line 9",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_search_never_leaves_the_workspace(tmp_path: Path, backend: Backend) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "in").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("TOKEN outside\n")
    (ws / "in" / "a.txt").write_text("TOKEN inside\n")
    (ws / "out").symlink_to(outside)  # a symlinked folder is not followed by the walk
    (ws / "in" / "s.txt").symlink_to(outside / "secret.txt")  # nor is a symlinked file read
    w = Workspace(ws)
    assert search(w, "TOKEN", backend=backend) == ["in/a.txt:1:TOKEN inside"]
    assert search(w, "*.txt", target="files", backend=backend) == ["in/a.txt"]
    with pytest.raises(ToolError, match="symlink that leads outside"):
        search(w, "TOKEN", path="out", backend=backend)


def test_non_utf8_files_are_searched_in_their_encoding(ws: Path) -> None:
    (ws / "fr.txt").write_bytes("déjà main vu\n".encode("cp1252"))
    assert "fr.txt:1:déjà main vu" in run_tool(ws, pattern="déjà")
