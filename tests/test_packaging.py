"""The wheel carries every file the package reads at run time, not only its Python modules."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tooldeck"


def test_every_data_file_of_the_package_is_in_its_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["tooldeck"]
    shipped = {path for pattern in patterns for path in PACKAGE.glob(pattern)}
    data = {
        path
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert sorted(str(p.relative_to(PACKAGE)) for p in data - shipped) == []
