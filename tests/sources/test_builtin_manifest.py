"""The built-in tools are listed from a manifest that matches them, and load only when used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tooldeck import Config, Deck
from tooldeck._core.sources.builtin import MANIFEST, generate_manifest


def test_the_manifest_is_what_the_tools_say() -> None:
    recorded = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert recorded == json.loads(json.dumps(generate_manifest())), (
        "regenerate it: python -m tooldeck._core.sources.builtin"
    )


def test_listing_imports_no_tool_module_and_calling_loads_the_real_tool(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    code = f"""
import sys
from tooldeck import Config, Deck
deck = Deck(Config(sandbox={{"workspace": {str(tmp_path)!r}}}, home={str(tmp_path / "home")!r}))
deck.tools(); deck.explain()
before = sorted(m for m in sys.modules if m.startswith(("tooldeck.tools.files", "tooldeck.tools.terminal", "tooldeck._core.fs")))
result = deck.call_sync("read_file", {{"path": "notes.txt"}})
after = "tooldeck.tools.files" in sys.modules
print(before, after, result.content.splitlines()[0])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] True 1|alpha"


def test_a_stand_in_keeps_what_the_real_tool_shows_and_does(tmp_path: Path) -> None:
    deck = Deck(Config(home=str(tmp_path), platform_toolsets={"cli": ["all"]}))
    from tooldeck.tools.files import read_file

    listed = deck.loadout().get("read_file")
    assert listed is not None and listed.parameters == read_file.parameters
    assert listed.description == read_file.description and listed.resource == read_file.resource
    assert listed.owner == "tooldeck.tools.files:read_file" and listed.source == "builtin"
    live = [t for t in deck.tools(agent=True) if t["function"]["name"] == "delegate_task"]
    assert "at most 3 sub-agents" in live[0]["function"]["description"]  # a live description, loaded
