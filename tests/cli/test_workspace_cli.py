"""A workspace folder that cannot be opened, through the real console script and the Deck API:
`tools` and `explain` say why before a call fails, and the tools that work in the folder are
hidden by the availability gate with that reason until it can be opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldeck import Config, Deck
from tooldeck._core.config import SandboxConfig

from .clirun import tooldeck_here

FILE_TOOLS = "patch, read_file, search_files, write_file"  # present_files: agent runs only


@pytest.mark.parametrize(
    ("workspace", "problem"),
    [("missing/dir", "does not exist"), ("a-file.txt", "is not a folder")],
)
def test_tools_explain_and_call_say_why_the_workspace_cannot_be_used(
    tmp_path: Path, workspace: str, problem: str
) -> None:
    (tmp_path / "a-file.txt").write_text("not a folder\n")
    config = tmp_path / "tooldeck.yaml"
    config.write_text(f"sandbox: {{workspace: {workspace}}}\n", encoding="utf-8")
    folder = tmp_path / workspace
    reason = f"sandbox.workspace: the folder {folder} {problem}"
    warning = f"tooldeck: warning: {reason}; unavailable until it can be opened: {FILE_TOOLS}"

    tools = tooldeck_here("tools", "--config", str(config), "--json")
    assert tools.returncode == 0 and warning in tools.stderr.splitlines()
    exposed = {t["function"]["name"] for t in json.loads(tools.stdout)}
    assert "read_file" not in exposed and "todo" in exposed

    explain = tooldeck_here("explain", "read_file", "write_file", "--config", str(config), "--json")
    assert explain.returncode == 0 and warning in explain.stderr.splitlines()
    rows = json.loads(explain.stdout)
    assert [(r["name"], r["status"], r["gate"], r["reason"]) for r in rows] == [
        ("read_file", "hidden", "availability", reason),
        ("write_file", "hidden", "availability", reason),
    ]
    human = tooldeck_here("explain", "read_file", "--config", str(config))
    assert f"sandbox.workspace: the folder {folder} {problem}; unavailable" in human.stdout

    call = tooldeck_here("call", "read_file", "--args", '{"path": "x"}', "--config", str(config), "--json")
    assert call.returncode == 1
    error = json.loads(call.stdout)["error"]
    assert error["type"] == "unavailable" and reason in error["message"]


def test_the_file_tools_come_back_when_the_folder_appears(tmp_path: Path) -> None:
    workspace = tmp_path / "later"
    deck = Deck(Config(sandbox=SandboxConfig(workspace=str(workspace))))
    [fate] = deck.explain("read_file").fates
    assert (fate.status, fate.gate) == ("hidden", "availability")
    assert [str(d) for d in deck.explain().diagnostics if d.path == "sandbox.workspace"] == [
        f"sandbox.workspace: the folder {workspace} does not exist; unavailable until it can be opened: "
        + FILE_TOOLS
    ]
    workspace.mkdir()
    (workspace / "notes.txt").write_text("hello\n")
    deck.invalidate()  # as after the check's TTL: the next assembly checks the folder again
    assert deck.explain("read_file").fates[0].status == "exposed"
    assert not [d for d in deck.explain().diagnostics if d.path == "sandbox.workspace"]
    assert deck.call_sync("read_file", {"path": "notes.txt"}).content.endswith("1|hello")
