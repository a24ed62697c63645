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
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement

SRC = Path(__file__).resolve().parents[2] / "src" / "tooldeck"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_closure(
    requirements: Iterable[str], extras: Iterable[str] = ()
) -> list[importlib.metadata.Distribution]:
    """The installed distributions that `requirements` (lines as a METADATA's Requires-Dist says
    them, markers included), with `extras` asked of their owner, name, and those they require, recursively; each one's
    version checked against every specifier met on the way (ValueError names a mismatch)."""
    seen: dict[str, importlib.metadata.Distribution] = {}
    todo = [(Requirement(line), frozenset(extras)) for line in requirements]
    done: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, wanted_by = todo.pop()
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in {"", *wanted_by}):
            continue
        name, extras = _canonical(req.name), frozenset(req.extras)
        try:
            dist = seen.get(name) or importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python, left uninstalled
        if not req.specifier.contains(dist.version, prereleases=True):
            raise ValueError(f"{req} is required, and {dist.metadata['Name']} {dist.version} is installed")
        seen[name] = dist
        if (name, extras) not in done:
            done.add((name, extras))
            todo += [(Requirement(line), extras) for line in dist.requires or []]
    return list(seen.values())


def place_distributions(dists: Iterable[importlib.metadata.Distribution], dest: Path) -> None:
    """Each distribution's files (its dist-info included) under `dest`, a site-packages-like folder:
    hard links where they can be (the same bytes at no cost), else copies. Console scripts (outside
    site-packages) and compiled caches are left behind."""
    for dist in dists:
        base = Path(str(dist.locate_file("")))
        for rel in dist.files or []:
            if ".." in rel.parts or "__pycache__" in rel.parts:
                continue
            source = base / rel
            if source.is_file():
                _place(source, dest / rel)


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
    place_distributions(requirement_closure(importlib.metadata.requires("tooldeck") or []), dest)
    for path in [dest, *dest.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    for path in (dest / "tooldeck").rglob("*"):
        if path.is_file():
            path.chmod(0o644)  # copies of the checkout's files (the linked ones keep their own mode)
    return dest
