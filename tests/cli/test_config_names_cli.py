"""Config settings that name tools or groups, checked through the real console script: a typo is
reported with its key path (an error under `strict: true`), and a name that is valid on another
platform is not a typo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .clirun import tooldeck_here

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "tooldeck.yaml"


def test_tool_groups_are_checked_against_every_platform_not_only_the_selected_one(tmp_path: Path) -> None:
    proc = tooldeck_here("tools", "--config", str(EXAMPLE), "--platform", "gateway", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "tool_groups" not in proc.stderr  # `notes`, `web`, ... have tools, just not on gateway
    # A group that no tool of any platform has is still reported, on every platform.
    shutil.copytree(EXAMPLE.parent, tmp_path / "example")
    typo = tmp_path / "example" / "tooldeck.yaml"
    text = typo.read_text(encoding="utf-8").replace("tool_groups: [text,", "tool_groups: [txet, text,")
    typo.write_text(text, encoding="utf-8")
    for platform in ("cli", "gateway"):
        proc = tooldeck_here("tools", "--config", str(typo), "--platform", platform, "--json")
        assert proc.returncode == 0, proc.stderr
        assert "tooldeck: warning: tool_groups[0]: tool group 'txet' matches no tool" in proc.stderr
        assert [line for line in proc.stderr.splitlines() if "tool_groups" in line] == [
            "tooldeck: warning: tool_groups[0]: tool group 'txet' matches no tool"
        ]
        assert json.loads(proc.stdout)  # still a valid tools array


def _project(tmp_path: Path, text: str) -> Path:
    (tmp_path / "ws").mkdir(exist_ok=True)
    path = tmp_path / "tooldeck.yaml"
    path.write_text("sandbox: {workspace: ws}\n" + text, encoding="utf-8")
    return path


TYPO = "tooldeck: warning: approvals.tools.write_fiel: no tool named 'write_fiel'; did you mean 'write_file'?"


def test_a_misspelt_approvals_tools_name_is_reported_by_tools_explain_and_call(tmp_path: Path) -> None:
    config = _project(tmp_path, "approvals: {tools: {write_fiel: ask}}\n")
    tools = tooldeck_here("tools", "--config", str(config), "--json")
    assert tools.returncode == 0 and TYPO in tools.stderr.splitlines()
    explain = tooldeck_here("explain", "write_file", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    assert TYPO.removeprefix("tooldeck: warning: ") in explain.stdout
    args = '{"path": "a.txt", "content": "x"}'
    call = tooldeck_here("call", "write_file", "--args", args, "--config", str(config))
    assert TYPO in call.stderr.splitlines()
    # A warning does not stop the call: the file is written, under write_file's own approval mode.
    assert call.returncode == 0 and (tmp_path / "ws" / "a.txt").read_text() == "x"


def test_strict_makes_a_misspelt_approvals_name_an_error(tmp_path: Path) -> None:
    config = _project(tmp_path, "strict: true\napprovals: {tools: {write_fiel: ask, 'wirte_*': deny}}\n")
    args = '{"path": "a.txt", "content": "x"}'
    for command in (("tools",), ("explain",), ("call", "write_file", "--args", args)):
        proc = tooldeck_here(*command, "--config", str(config))
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert "approvals.tools.write_fiel: no tool named 'write_fiel'" in proc.stderr
        assert "approvals.tools.wirte_*: pattern 'wirte_*' matches no tool" in proc.stderr
        assert "(strict: true)" in proc.stderr
    assert not (tmp_path / "ws" / "a.txt").exists()


def test_approvals_names_hidden_here_or_of_a_server_that_is_down_are_no_typos(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        "strict: true\n"
        "platform_toolsets: {cli: [file], gateway: [terminal]}\n"
        "mcp_servers: {gh: {command: /nonexistent/mcp-server, connect_timeout: 2}}\n"
        "approvals: {tools: {terminal: deny, 'web_*': ask, 'mcp__gh__*': deny, mcp__gh__create_issue: ask}}\n",
    )
    proc = tooldeck_here("tools", "--config", str(config), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "approvals.tools" not in proc.stderr
    # A server nobody configured is a typo, though: its tools can never exist.
    config.write_text(config.read_text().replace("mcp__gh__create_issue", "mcp__hg__create_issue"))
    proc = tooldeck_here("tools", "--config", str(config), "--json")
    assert proc.returncode == 2
    assert "approvals.tools.mcp__hg__create_issue: no tool named 'mcp__hg__create_issue'" in proc.stderr
