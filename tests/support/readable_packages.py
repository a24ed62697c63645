"""tooldeck and what it needs at run time, in a folder any user can read.

A test that drops privileges (root running a command as `nobody`) cannot rely on the checkout or
its venv being readable: a clone under `/root` or in a `mktemp -d` folder is not. Such a test
puts this folder on the unprivileged user's PYTHONPATH instead.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import tempfile
from pathlib import Path

from packaging.requirements import Requirement

SRC = Path(__file__).resolve().parents[2] / "src" / "tooldeck"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_closure(root: str) -> list[importlib.metadata.Distribution]:
    """The installed distributions `root` requires without extras, and theirs, recursively."""
    seen: dict[str, importlib.metadata.Distribution] = {}
    todo = [root]
    while todo:
        name = _canonical(todo.pop())
        if name in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python, left uninstalled
        seen[name] = dist
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return [d for n, d in seen.items() if n != _canonical(root)]


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)  # the same bytes at no cost; the directories above are our own
    except OSError:
        shutil.copy2(source, target)


def readable_packages() -> Path:
    """A new folder (mode 755, the caller removes it) holding the checkout's `tooldeck` and every
    distribution it requires at run time, for a PYTHONPATH."""
    dest = Path(tempfile.mkdtemp(prefix="tooldeck-readable-site-"))
    dest.chmod(0o755)
    shutil.copytree(SRC, dest / "tooldeck", ignore=shutil.ignore_patterns("__pycache__"))
    for dist in _runtime_closure("tooldeck"):
        base = Path(str(dist.locate_file("")))
        for rel in dist.files or []:
            if ".." in rel.parts or "__pycache__" in rel.parts:
                continue  # console scripts outside site-packages, compiled caches
            source = base / rel
            if source.is_file():
                _place(source, dest / rel)
    for path in [dest, *dest.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    for path in (dest / "tooldeck").rglob("*"):
        if path.is_file():
            path.chmod(0o644)  # copies of the checkout's files (the linked ones keep their own mode)
    return dest
