"""A package's lazily offered names come from its own `if TYPE_CHECKING:` imports, once."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from tooldeck._utils.lazy import lazy_imports

SOURCE = """
from typing import TYPE_CHECKING

from json import dumps as dumps

if TYPE_CHECKING:
    # a comment between imports
    from json import loads
    from os.path import (
        basename,  # trailing comment
        join as join_path,
    )

    def helper() -> None:
        from shutil import copy  # inside a function of the block: still the block


def later() -> None:
    from textwrap import dedent  # a function's own import, not the package's face
"""


def test_names_under_type_checking_map_to_their_modules_and_renames_to_module_colon_attr() -> None:
    table = lazy_imports(SOURCE)
    assert table["loads"] == "json"
    assert table["basename"] == "os.path"
    assert table["join_path"] == "os.path:join"
    assert "dumps" not in table  # imported eagerly, not lazily
    assert "dedent" not in table  # after the block ends


def test_a_package_built_this_way_imports_on_first_use_and_refuses_an_unimported_public_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "lazypkg"
    package.mkdir()
    body = (
        "from typing import TYPE_CHECKING\n\nfrom tooldeck._utils.lazy import lazy_exports\n\n"
        "if TYPE_CHECKING:\n    from textwrap import dedent\n    from json import loads as parse\n\n"
        "__all__ = {names}\n\n__getattr__ = lazy_exports(__name__, __file__, globals())\n"
    )
    (package / "__init__.py").write_text(body.format(names='["dedent", "parse"]'))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("lazypkg")
    try:
        assert "dedent" not in vars(module)
        assert module.dedent("  x") == "x"
        assert module.parse("[1]") == [1]
        assert "dedent" in vars(module)  # kept: the next use costs nothing
        with pytest.raises(AttributeError, match="no attribute 'nothing'"):
            _ = module.nothing
        (package / "__init__.py").write_text(body.format(names='["dedent", "missing_name"]'))
        sys.modules.pop("lazypkg")
        with pytest.raises(ImportError, match="missing_name"):
            importlib.import_module("lazypkg")
    finally:
        sys.modules.pop("lazypkg", None)
