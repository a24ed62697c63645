"""The descriptor-based file layer (`tooldeck._core.fs`), with openat2 and with the component walk.

Real folders, real symlinks; every test runs in both modes, so the fallback a kernel without
openat2 (or a seccomp filter) would use is exercised on every machine.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from tooldeck._core.fs import ConfinedRoot, Refused, default_file_mode, kernel

MODES = [pytest.param(True, id="openat2"), pytest.param(False, id="walk")]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub" / "deep").mkdir(parents=True)
    outside.mkdir()
    (ws / "sub" / "deep" / "f.txt").write_text("inside")
    (outside / "secret.txt").write_text("SECRET")
    (ws / "rel_in").symlink_to("sub/deep/f.txt")
    (ws / "abs_in").symlink_to(ws / "sub")
    (ws / "sub" / "up").symlink_to("../sub/deep")  # climbs, but stays inside
    (ws / "esc").symlink_to("../outside")
    (ws / "abs_out").symlink_to(outside / "secret.txt")
    (ws / "sub" / "deep" / "far").symlink_to("../../../outside/secret.txt")
    (ws / "loop_a").symlink_to("loop_b")
    (ws / "loop_b").symlink_to("loop_a")
    return ws


def read(root: ConfinedRoot, path: str) -> str:
    fd = root.open(tuple(path.split("/")))
    try:
        return os.read(fd, 100).decode()
    finally:
        os.close(fd)


@pytest.mark.parametrize("fast", MODES)
def test_in_root_symlinks_are_followed(tree: Path, fast: bool) -> None:
    root = ConfinedRoot(tree, use_openat2=fast)
    for path in ("sub/deep/f.txt", "rel_in", "abs_in/deep/f.txt", "sub/up/f.txt", "sub/../sub/deep/f.txt"):
        assert read(root, path) == "inside", path


@pytest.mark.parametrize("fast", MODES)
@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("esc/secret.txt", "esc"),
        ("abs_out", "abs_out"),
        ("sub/deep/far", "sub/deep/far"),
        ("../outside/secret.txt", ""),
    ],
)
def test_escapes_are_refused_and_located(tree: Path, fast: bool, path: str, where: str) -> None:
    root = ConfinedRoot(tree, use_openat2=fast)
    with pytest.raises(Refused) as caught:
        read(root, path)
    assert caught.value.kind == "escape" and caught.value.where == where


@pytest.mark.parametrize("fast", MODES)
def test_loops_missing_files_and_files_used_as_folders(tree: Path, fast: bool) -> None:
    root = ConfinedRoot(tree, use_openat2=fast)
    with pytest.raises(Refused) as caught:
        read(root, "loop_a")
    assert caught.value.kind == "loop"
    with pytest.raises(FileNotFoundError):
        read(root, "sub/nope.txt")
    with pytest.raises(NotADirectoryError):
        read(root, "sub/deep/f.txt/x")


@pytest.mark.parametrize("fast", MODES)
def test_a_root_without_symlinks_refuses_every_one(tree: Path, fast: bool) -> None:
    root = ConfinedRoot(tree, follow_symlinks=False, use_openat2=fast)
    assert read(root, "sub/deep/f.txt") == "inside"
    for path in ("rel_in", "abs_in/deep/f.txt", "sub/up/f.txt"):
        with pytest.raises(Refused) as caught:
            read(root, path)
        assert caught.value.kind == "symlink", path
    with pytest.raises(Refused):
        root.write_atomic(("rel_in",), b"x")
    assert (tree / "sub/deep/f.txt").read_text() == "inside"


@pytest.mark.parametrize("fast", MODES)
def test_atomic_writes_keep_or_set_permissions_and_make_folders(tree: Path, fast: bool) -> None:
    root = ConfinedRoot(tree, use_openat2=fast)
    assert root.write_atomic(("new", "dir", "a.txt"), b"one") is False
    assert (tree / "new/dir/a.txt").read_bytes() == b"one"
    assert stat.S_IMODE((tree / "new/dir/a.txt").stat().st_mode) == default_file_mode()
    os.chmod(tree / "new/dir/a.txt", 0o640)
    assert root.write_atomic(("new", "dir", "a.txt"), b"two") is True
    assert stat.S_IMODE((tree / "new/dir/a.txt").stat().st_mode) == 0o640
    assert root.write_atomic(("new", "b.txt"), b"x", mode=0o600) is False
    assert stat.S_IMODE((tree / "new/b.txt").stat().st_mode) == 0o600
    assert sorted(p.name for p in (tree / "new/dir").iterdir()) == ["a.txt"]  # no temporary file left
    with pytest.raises(FileExistsError):
        root.write_atomic(("new", "b.txt"), b"y", exclusive=True)


@pytest.mark.parametrize("fast", MODES)
def test_writes_through_an_in_root_link_replace_its_target_and_never_leave(tree: Path, fast: bool) -> None:
    root = ConfinedRoot(tree, use_openat2=fast)
    root.write_atomic(("rel_in",), b"via link")
    assert (tree / "rel_in").is_symlink() and (tree / "sub/deep/f.txt").read_bytes() == b"via link"
    for path in (("esc", "w.txt"), ("abs_out",), ("sub", "deep", "far")):
        with pytest.raises(Refused):
            root.write_atomic(path, b"x")
    with pytest.raises(Refused):
        root.makedirs(("esc", "made"))
    assert sorted(p.name for p in (tree.parent / "outside").iterdir()) == ["secret.txt"]
    assert (tree.parent / "outside/secret.txt").read_text() == "SECRET"


@pytest.mark.parametrize("fast", MODES)
def test_listing_renaming_and_removing(tree: Path, fast: bool) -> None:
    root = ConfinedRoot(tree, use_openat2=fast)
    kinds = {e.name: e.kind for e in root.listdir(())}
    assert kinds["sub"] == "dir" and kinds["esc"] == "link" and kinds["rel_in"] == "link"
    root.rename(("sub", "deep", "f.txt"), ("moved", "g.txt"))
    assert (tree / "moved/g.txt").read_text() == "inside" and not (tree / "sub/deep/f.txt").exists()
    (tree / "taken.txt").write_text("taken")
    with pytest.raises(FileExistsError):
        root.rename(("moved", "g.txt"), ("taken.txt",))
    root.unlink(("esc",))  # removes the link itself, not what it points at
    assert not (tree / "esc").is_symlink() and (tree.parent / "outside/secret.txt").exists()
    assert root.exists(("moved", "g.txt")) and not root.exists(("esc",))


def test_a_child_root_is_opened_through_its_parent(tree: Path) -> None:
    base = ConfinedRoot(tree, follow_symlinks=False)
    child = base.child(("made", "here"), create=True, mode=0o700)
    assert stat.S_IMODE((tree / "made/here").stat().st_mode) == 0o700
    child.write_atomic(("x.txt",), b"x")
    assert (tree / "made/here/x.txt").read_bytes() == b"x"
    with pytest.raises(Refused):
        base.child(("abs_in",))


def test_kernel_calls() -> None:
    assert isinstance(kernel.openat2_available(), bool)
    with pytest.raises(OSError) as caught:
        kernel.openat2(-1, "x", os.O_RDONLY, 0, kernel.RESOLVE_BENEATH)
    assert caught.value.errno in (errno.EBADF, errno.ENOSYS)


UMASK_SCRIPT = """
import json, os, stat, sys
from tooldeck import Deck
from tooldeck import parse_config
from tooldeck._core.fs import default_file_mode

ws, home = sys.argv[1], sys.argv[2]
deck = Deck(parse_config({"sandbox": {"workspace": ws}, "home": home}))
modes = {}
for umask in (0o022, 0o077, 0o027):
    os.umask(umask)
    name = f"made-under-{umask:03o}.txt"
    result = deck.call_sync("write_file", {"path": name, "content": "x"})
    assert result.ok, result.error
    modes[name] = [stat.S_IMODE(os.stat(os.path.join(ws, name)).st_mode), default_file_mode()]
print(json.dumps(modes))
"""


def test_a_new_file_gets_the_umask_the_process_has_when_it_is_written(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    ws = tmp_path / "ws"
    ws.mkdir()
    # A process of its own: the umask is process-wide, and the test runner's must not change.
    proc = subprocess.run(
        [sys.executable, "-c", UMASK_SCRIPT, str(ws), str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "made-under-022.txt": [0o644, 0o644],
        "made-under-077.txt": [0o600, 0o600],
        "made-under-027.txt": [0o640, 0o640],
    }
