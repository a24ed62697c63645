"""The API reference is generated from docstrings: every public name has one, and every public
module with a pinned `__all__` has a page of the reference."""

from __future__ import annotations

import re
from pathlib import Path

import griffe
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs" / "api").glob("*.md"))


def documented_modules() -> list[str]:
    found = []
    for page in PAGES:
        found += re.findall(r"^::: (tooldeck[\w.]*)$", page.read_text(encoding="utf-8"), re.M)
    return found


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    # The same static reading of the source as mkdocstrings does at build time.
    loaded = griffe.load("tooldeck", search_paths=[str(ROOT / "src")], resolve_aliases=True)
    assert isinstance(loaded, griffe.Module)
    return loaded


def module_of(package: griffe.Module, path: str) -> griffe.Module:
    found = package if path == "tooldeck" else package[path.removeprefix("tooldeck.")]
    assert isinstance(found, griffe.Module), path
    return found


@pytest.mark.parametrize("path", documented_modules())
def test_every_public_name_of_a_documented_module_has_a_docstring(package: griffe.Module, path: str) -> None:
    module = module_of(package, path)
    assert module.docstring is not None, f"{path}: no module docstring"
    names = [n if isinstance(n, str) else n.name for n in module.exports or []]
    undocumented = [name for name in names if module[name].docstring is None]
    assert undocumented == [], f"{path}: write a docstring for each (the reference shows it)"


def test_every_module_with_a_pinned_all_has_a_reference_page() -> None:
    import importlib

    pinned = ["tooldeck", "tooldeck.errors", "tooldeck.core", "tooldeck.inspect"]
    pinned += ["tooldeck.agent", "tooldeck.safety", "tooldeck.tracing", "tooldeck.interop"]
    for path in pinned:
        assert hasattr(importlib.import_module(path), "__all__"), path
    assert sorted(set(pinned) - set(documented_modules())) == []
