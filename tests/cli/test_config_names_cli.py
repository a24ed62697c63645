"""Config settings that name tools or groups, checked through the real console script: a typo is
reported with its key path (an error under `strict: true`), and a name that is valid on another
platform is not a typo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .clirun import tooldeck

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "tooldeck.yaml"


def test_tool_groups_are_checked_against_every_platform_not_only_the_selected_one(tmp_path: Path) -> None:
    proc = tooldeck("tools", "--config", str(EXAMPLE), "--platform", "gateway", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "tool_groups" not in proc.stderr  # `notes`, `web`, ... have tools, just not on gateway
    # A group that no tool of any platform has is still reported, on every platform.
    shutil.copytree(EXAMPLE.parent, tmp_path / "example")
    typo = tmp_path / "example" / "tooldeck.yaml"
    text = typo.read_text(encoding="utf-8").replace("tool_groups: [text,", "tool_groups: [txet, text,")
    typo.write_text(text, encoding="utf-8")
    for platform in ("cli", "gateway"):
        proc = tooldeck("tools", "--config", str(typo), "--platform", platform, "--json")
        assert proc.returncode == 0, proc.stderr
        assert "tooldeck: warning: tool_groups[0]: tool group 'txet' matches no tool" in proc.stderr
        assert [line for line in proc.stderr.splitlines() if "tool_groups" in line] == [
            "tooldeck: warning: tool_groups[0]: tool group 'txet' matches no tool"
        ]
        assert json.loads(proc.stdout)  # still a valid tools array
