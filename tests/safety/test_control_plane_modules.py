"""A workspace module that the config's module imports runs at the next start as surely as the
config's module itself: it is protected too, in the file tools and in the sandbox. Real
files, real bubblewrap, the real import of the config's tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Deck, load_config

CONFIG = (
    "home: .tooldeck\nsandbox: {kind: bwrap}\nplatform_toolsets: {cli: [file, terminal]}\n"
    "tools: [{use: 'cp_chain_tools:hello'}]\n"
)


def test_modules_the_configs_module_imports_are_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deck puts its config folder on sys.path: restore it, so later tests never see this folder.
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in ("cp_chain_tools", "cp_chain_helpers", "cp_chain_pkg"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    root = tmp_path / "p"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "tooldeck.yaml").write_text(CONFIG)
    (root / "cp_chain_tools.py").write_text(
        "from tooldeck import tool\nfrom cp_chain_helpers import GREETING\n\n"
        "@tool(toolset='file')\ndef hello() -> str:\n    'Hi.'\n    return GREETING\n"
    )
    (root / "cp_chain_helpers.py").write_text("import cp_chain_pkg.deep\nGREETING = 'hi'\n")
    (root / "cp_chain_pkg").mkdir()
    (root / "cp_chain_pkg" / "__init__.py").write_text("")
    (root / "cp_chain_pkg" / "deep.py").write_text("")
    (root / "unrelated.py").write_text("")
    deck = Deck(load_config(root / "tooldeck.yaml"))
    assert deck.call_sync("hello", {}).content == "hi"
    for path in ("cp_chain_helpers.py", "cp_chain_pkg/deep.py"):
        done = deck.call_sync("write_file", {"path": path, "content": "import os\n"})
        error = json.loads(done.content)["error"]
        assert error["type"] == "denied" and "a module the config imports" in error["message"], error
    out = deck.call_sync("terminal", {"command": "echo x >> cp_chain_helpers.py; echo end"}).content
    assert "end" in out and "Read-only file system" in out, out
    assert (root / "cp_chain_helpers.py").read_text() == "import cp_chain_pkg.deep\nGREETING = 'hi'\n"
    # A workspace module nothing imports stays the model's to edit.
    assert deck.call_sync("write_file", {"path": "unrelated.py", "content": "x = 1\n"}).error is None
