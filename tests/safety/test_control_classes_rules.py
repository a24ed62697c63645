"""The classes judged path by path (`ClassRules.judge`), on a real folder: what each class
covers, at any depth, what a change into nothing or into a folder is, and what `!PATH` takes
out of them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tooldeck._core.control_classes import ClassRules, PathChange

FILE = PathChange("file", b"x = 1\n")
GONE = PathChange("absent")
FOLDER = PathChange("folder")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "envs" / "py" / "bin").mkdir(parents=True)
    (ws / "envs" / "py" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (ws / "envs" / "conda" / "conda-meta").mkdir(parents=True)
    (ws / "web" / "node_modules" / ".bin").mkdir(parents=True)
    return ws


def rules(root: Path, *exempt: str) -> ClassRules:
    return ClassRules.of(os.path.realpath(root), exempt)


@pytest.mark.parametrize(
    "path",
    [
        "lib/python3.12/site-packages/evil.pth",
        "deep/a/b/dist-packages/sitecustomize.py",
        "x/site-packages/usercustomize/__init__.py",
        "x/site-packages/__pycache__/sitecustomize.cpython-311.pyc",
        "x/site-packages/sitecustomize.cpython-311-x86_64-linux-gnu.so",
        "envs/py/bin/python3",
        "envs/py/bin/activate",
        "envs/py/pyvenv.cfg",
        "envs/conda/bin/conda",
        "envs/conda/etc/conda/activate.d/env.sh",
        "web/node_modules/.bin/tsc",
        "crate/.cargo/config.toml",
        ".cargo/config",
        "pkg/.npmrc",
        ".yarnrc.yml",
        "a/b/tooldeck.yaml",
    ],
)
def test_each_class_covers_its_paths_at_any_depth(root: Path, path: str) -> None:
    assert rules(root).judge(path, FILE) is not None


@pytest.mark.parametrize(
    "path",
    [
        "x/site-packages/requests/__init__.py",
        "x/site-packages/nested/evil.pth",  # Python reads .pth files only at the top of a site folder
        "scripts/build.sh",  # not an environment's bin/
        "bin/tool",
        "web/node_modules/left-pad/index.js",
        "app/config.toml",
        "tooldeck.yml",
    ],
)
def test_ordinary_files_beside_them_are_not_covered(root: Path, path: str) -> None:
    assert rules(root).judge(path, FILE) is None


def test_removing_a_start_up_file_or_making_the_folders_runs_nothing(root: Path) -> None:
    judge = rules(root).judge
    assert judge("x/site-packages/evil.pth", GONE) is None
    assert judge("envs/py/bin/python3", GONE) is None
    assert judge("x/site-packages", FOLDER) is None
    assert judge("x/site-packages", PathChange("symlink")) is not None
    assert judge("a/tooldeck.yaml", GONE) is not None  # without it the next start has other rights


def test_a_workspace_that_is_an_environment_protects_its_own_bin(tmp_path: Path) -> None:
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(tmp_path / "env")], check=True)
    assert rules(tmp_path / "env").judge("bin/python", FILE) is not None


def test_an_exempted_path_leaves_every_class(root: Path) -> None:
    judge = rules(root, "envs/py").judge
    assert judge("envs/py/bin/python3", FILE) is None
    assert judge("envs/py/lib/python3.11/site-packages/x.pth", FILE) is None
    assert judge("envs/conda/bin/conda", FILE) is not None


def test_git_hooks_in_git_folders_only(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    judge = rules(tmp_path).judge
    assert judge("r/.git/hooks/pre-commit", FILE) is not None
    assert judge("r/.git/modules/s/hooks/post-checkout", FILE) is not None
    assert judge("r/.git/hooks/pre-commit.sample", FILE) is None
    assert judge("r/.git/refs/heads/hooks", PathChange("file", b"0" * 40 + b"\n")) is None  # a branch
    assert judge("r/.git/hooks", FOLDER) is None and judge("r/.git/hooks/pre-commit", GONE) is None
